/**
 * The sample conversation's content, as plain data (no imports, so the build scripts can read the
 * photo list): six chat sessions over half a year (the cat and the flat, a motorcycle, a balcony
 * garden, a space-mad niece, a photography course, family), 61 rounds, 31 of them with a real
 * photo from the test fixtures, with chat text and captions written for the demo.
 */

/** One round: what was said, on which day, and its photo. */
export interface SampleRound {
  readonly id: string;
  /** Days after the first round. */
  readonly day: number;
  readonly user: string;
  readonly assistant: string;
  readonly photo?: { readonly file: string; readonly caption: string };
}

/** A chat session's rounds, in time order. */
export interface SampleSession {
  readonly id: string;
  readonly rounds: readonly SampleRound[];
}

export const SAMPLE_START = Date.UTC(2025, 2, 1, 9, 30);

export const SAMPLE_SESSIONS: readonly SampleSession[] = [
  {
    id: 'home',
    rounds: [
      { id: 'sample-hello', day: 0, user: "Hi! I'd like you to remember things for me: my cat, the flat, the bike, the balcony garden, the odd photo.", assistant: "Happy to. Tell me whatever you'd like me to keep, and ask me about it any time." },
      {
        id: 'sample-cat',
        day: 1,
        user: 'This is my cat Chelsea. She is a tabby with green eyes and sleeps on the radiator all winter.',
        assistant: 'Chelsea looks very relaxed! Tabby cats are often that curious.',
        photo: { file: 'sk_chelsea.jpg', caption: 'close-up of a tabby cat with green eyes looking up' },
      },
      { id: 'sample-cat-food', day: 2, user: 'Chelsea only eats the salmon kibble from the pet shop on Mill Road, half a cup every morning.', assistant: 'Noted: salmon kibble from Mill Road, half a cup each morning.' },
      { id: 'sample-vet', day: 4, user: "Chelsea's vet appointment is on the 14th, for her annual vaccines.", assistant: "Noted: vet on the 14th for Chelsea's annual vaccines." },
      {
        id: 'sample-brick',
        day: 5,
        user: 'The living room wall is exposed brick that the last tenant painted grey. I am thinking of stripping the paint.',
        assistant: 'Test a small patch first; old brick can crumble under paint stripper.',
        photo: { file: 'sk_brick.jpg', caption: 'a grey painted brick wall' },
      },
      {
        id: 'sample-floor',
        day: 6,
        user: 'Sample of the oak flooring we might put in the hallway.',
        assistant: 'A pale oak will make the hallway look wider.',
        photo: { file: 'mate_Wood.jpg', caption: 'close-up of pale wood grain' },
      },
      {
        id: 'sample-coffee',
        day: 8,
        user: 'Tried the new cafe near the station; best espresso in town.',
        assistant: 'Nice find. Worth a second visit to try their filter coffee too.',
        photo: { file: 'sk_coffee.jpg', caption: 'an espresso in a red cup and saucer on a wooden table' },
      },
      { id: 'sample-espresso-machine', day: 9, user: 'Thinking about a lever espresso machine for home, budget around 400 euros.', assistant: 'At that budget a good grinder matters as much as the machine.' },
      { id: 'sample-boiler', day: 11, user: 'The landlord says the boiler is serviced on 3 April; I need to be home between 8 and 12.', assistant: 'Noted: boiler service on 3 April, be home 8 to 12.' },
      { id: 'sample-vet-result', day: 14, user: 'Back from the vet: Chelsea weighs 4.2 kg and had both vaccines. Next check in a year.', assistant: 'Good news. I will remember 4.2 kg as her weight in March.' },
    ],
  },
  {
    id: 'bike',
    rounds: [
      {
        id: 'sample-motorcycle',
        day: 20,
        user: "Finally bought the motorcycle I've been saving for! Here it is in the garage.",
        assistant: 'Congratulations! Ride safe and keep up with the servicing.',
        photo: { file: 'sk_motorcycle_left.jpg', caption: 'a red motorcycle parked in a cluttered garage, seen from the side' },
      },
      { id: 'sample-helmet', day: 21, user: 'I need a new helmet for the bike, size M, with good ventilation.', assistant: 'Look for ECE 22.06 certification and try it on before buying.' },
      { id: 'sample-insurance', day: 22, user: 'The bike is insured with Harbour Mutual, policy HM-20931; it renews every March.', assistant: 'Noted: Harbour Mutual, policy HM-20931, renewal in March.' },
      {
        id: 'sample-gravel',
        day: 25,
        user: 'This is the gravel drive where I park the bike; the side stand sinks into it after rain.',
        assistant: 'A small plate under the side stand spreads the weight.',
        photo: { file: 'sk_gravel.jpg', caption: 'close-up of grey gravel stones' },
      },
      { id: 'sample-first-ride', day: 27, user: 'First proper ride today: 120 km along the coast road, back before dark.', assistant: 'A great first outing. How did the bike feel on the bends?' },
      {
        id: 'sample-storm',
        day: 30,
        user: 'Rode home under this sky and got soaked ten minutes later.',
        assistant: 'Worth packing rain gear from now on.',
        photo: { file: 'mate_Storm.jpg', caption: 'dark storm clouds over an empty road and flat land' },
      },
      { id: 'sample-service', day: 40, user: "The bike's first service is due at 1,000 km; the dealer quoted 180 euros.", assistant: 'Noted: first service at 1,000 km, about 180 euros.' },
      { id: 'sample-rain-gear', day: 41, user: 'Bought waterproof over-trousers after that storm.', assistant: 'Good call; the next downpour will be a lot more pleasant.' },
    ],
  },
  {
    id: 'garden',
    rounds: [
      { id: 'sample-garden-plan', day: 50, user: 'Starting the balcony garden this weekend: marigolds, basil and a wildflower mix.', assistant: 'Marigolds also keep some pests away from the basil.' },
      {
        id: 'sample-marigold',
        day: 55,
        user: 'The first marigold opened!',
        assistant: 'What a colour. Deadhead them and they will keep flowering.',
        photo: { file: 'mate_Garden.jpg', caption: 'a red and orange marigold flower in sunlight' },
      },
      {
        id: 'sample-ladybird',
        day: 57,
        user: 'Found a ladybird on a grass stem next to the forget-me-nots.',
        assistant: 'Good news: ladybirds eat aphids.',
        photo: { file: 'mate_LadyBird.jpg', caption: 'a ladybird on a grass stem beside small blue flowers' },
      },
      { id: 'sample-aphids', day: 58, user: 'There are aphids on the basil though. Should I spray them?', assistant: 'Rinse them off with water and let the ladybirds do the rest; sprays would harm them too.' },
      {
        id: 'sample-raindrops',
        day: 60,
        user: 'After the rain every leaf on the balcony was covered in drops.',
        assistant: 'Lovely. The plants will have enjoyed that.',
        photo: { file: 'mate_RainDrops.jpg', caption: 'raindrops on bright green leaves' },
      },
      {
        id: 'sample-yellow-flower',
        day: 62,
        user: 'This yellow one came up from the wildflower mix; no idea what it is.',
        assistant: 'It looks like a calendula or an arnica; the leaves would tell them apart.',
        photo: { file: 'mate_YellowFlower.jpg', caption: 'a yellow flower with many thin petals' },
      },
      {
        id: 'sample-gerbera',
        day: 63,
        user: 'And an orange gerbera from the market, for the kitchen table.',
        assistant: 'Gerberas last longer in shallow water.',
        photo: { file: 'mate_FreshFlower.jpg', caption: "close-up of an orange flower's petals" },
      },
      {
        id: 'sample-dandelion',
        day: 65,
        user: 'Dandelion seeds caught the evening light on the balcony rail.',
        assistant: 'A beautiful shot, and a sign of more dandelions next year.',
        photo: { file: 'mate_TwoWings.jpg', caption: 'two dandelion seeds against a blurred orange background' },
      },
      {
        id: 'sample-leaf',
        day: 66,
        user: 'Macro of a banana leaf at the botanical garden.',
        assistant: 'The parallel veins are typical of bananas and their relatives.',
        photo: { file: 'mate_Blinds.jpg', caption: 'close-up of a green leaf with parallel veins' },
      },
      {
        id: 'sample-lawn',
        day: 70,
        user: 'The lawn seed behind the building is finally coming up.',
        assistant: 'Keep it damp for another two weeks and do not mow it until it is 8 cm tall.',
        photo: { file: 'mate_GreenMeadow.jpg', caption: 'dense short green grass' },
      },
      { id: 'sample-watering', day: 72, user: "While I'm away my neighbour Ana waters the balcony on Tuesdays and Fridays.", assistant: 'Noted: Ana waters on Tuesdays and Fridays while you are away.' },
    ],
  },
  {
    id: 'space',
    rounds: [
      {
        id: 'sample-rocket',
        day: 90,
        user: 'Watched a rocket launch stream with friends; this is the pad just before lift-off.',
        assistant: 'That must have been spectacular. Which mission was it?',
        photo: { file: 'sk_rocket.jpg', caption: 'a rocket on its launch pad at night, lit by floodlights' },
      },
      {
        id: 'sample-astronaut',
        day: 92,
        user: 'My niece Mia wants to be an astronaut; I printed her this portrait for her wall.',
        assistant: 'What a lovely gift. Space posters are great motivation.',
        photo: { file: 'sk_astronaut.jpg', caption: 'portrait of an astronaut in an orange spacesuit with a flag behind' },
      },
      { id: 'sample-mia-birthday', day: 93, user: "Mia's birthday is on 9 June; she'll be 8. Any ideas for a space-themed present?", assistant: 'A star projector or a beginner telescope would both be a hit.' },
      {
        id: 'sample-hubble',
        day: 95,
        user: 'Wallpaper of the week: the Hubble deep field. Every dot is a galaxy.',
        assistant: 'A humbling picture: thousands of galaxies in a tiny patch of sky.',
        photo: { file: 'sk_hubble_deep_field.jpg', caption: 'thousands of small galaxies on a black background' },
      },
      {
        id: 'sample-moon',
        day: 97,
        user: "A close-up of the moon's surface through the astronomy club's telescope.",
        assistant: 'You can see the small craters; the shadows show best near the terminator.',
        photo: { file: 'sk_moon.jpg', caption: 'grey close-up of the lunar surface with small craters' },
      },
      { id: 'sample-astro-club', day: 98, user: 'The astronomy club meets on the first Friday of the month at the library, 8 pm.', assistant: 'Noted: first Friday of the month, library, 8 pm.' },
      { id: 'sample-telescope', day: 100, user: 'Saving for a 130 mm reflector telescope, around 300 euros.', assistant: 'A good first telescope; add a red torch and a star chart.' },
      { id: 'sample-star-projector', day: 105, user: 'Bought Mia the star projector; it shows the constellations on the ceiling.', assistant: 'She will love it. Happy birthday to Mia!' },
    ],
  },
  {
    id: 'photo-course',
    rounds: [
      { id: 'sample-course', day: 120, user: 'Signed up for the evening photography course at the community college, Tuesdays 7 to 9 pm.', assistant: 'Noted: photography course on Tuesdays, 7 to 9 pm.' },
      {
        id: 'sample-cameraman',
        day: 122,
        user: 'The teacher showed us this classic photo of a man with a camera on a tripod.',
        assistant: 'A classic indeed; it is used in image processing textbooks everywhere.',
        photo: { file: 'sk_camera.jpg', caption: 'black and white photo of a man with a camera on a tripod in a field' },
      },
      {
        id: 'sample-colour-wheel',
        day: 124,
        user: "Lesson two was colour theory; here's the colour wheel from the handout.",
        assistant: 'Opposite colours on the wheel make the strongest contrasts.',
        photo: { file: 'sk_color.jpg', caption: 'a round colour wheel with every hue fading to white in the middle' },
      },
      {
        id: 'sample-clock',
        day: 126,
        user: 'Homework: a slow shutter photo of the kitchen clock. It came out all blurred.',
        assistant: 'Blur is the point of that exercise; try a tripod for the next one.',
        photo: { file: 'sk_clock_motion.jpg', caption: 'a clock face blurred by motion, in grey' },
      },
      {
        id: 'sample-drop',
        day: 128,
        user: 'I managed a high-speed shot of a drop hitting water!',
        assistant: 'Impressive timing. What shutter speed did you use?',
        photo: { file: 'mate_Aqua.jpg', caption: 'a water drop splashing into water, in blue light' },
      },
      {
        id: 'sample-horse',
        day: 131,
        user: "Designed a logo for my cousin's riding stable: a horse silhouette.",
        assistant: 'Simple and strong; it will print well at any size.',
        photo: { file: 'sk_horse.jpg', caption: 'black silhouette of a horse on a white background' },
      },
      {
        id: 'sample-handout',
        day: 133,
        user: 'Scanned a page of the course handout about image segmentation.',
        assistant: 'Handy to keep. Segmentation is what the editing tools use to select objects.',
        photo: { file: 'sk_page.jpg', caption: 'a printed page titled Region-based segmentation' },
      },
      {
        id: 'sample-notes',
        day: 134,
        user: 'And my handwritten notes from the same lesson, barely readable.',
        assistant: 'Typing them up the same evening helps them stick.',
        photo: { file: 'sk_text.jpg', caption: 'handwritten notes on paper, photographed at an angle' },
      },
      {
        id: 'sample-logo',
        day: 136,
        user: 'Got this sticker at the Python meetup after class.',
        assistant: 'Nice. The meetup sounds like a good place to learn the editing scripts.',
        photo: { file: 'sk_logo.jpg', caption: 'a round green and orange logo with a snake shape' },
      },
      { id: 'sample-meetup', day: 137, user: 'The Python meetup is every second Thursday at the co-working space.', assistant: 'Noted: Python meetup every second Thursday.' },
      { id: 'sample-exhibition', day: 145, user: "Our class exhibition is on 20 August in the college hall; I'm showing the water drop.", assistant: 'Congratulations! That photo deserves a wall.' },
      { id: 'sample-lens', day: 147, user: 'Thinking of buying a 50 mm f/1.8 lens, about 120 euros.', assistant: 'The best value lens there is; great for portraits.' },
    ],
  },
  {
    id: 'family',
    rounds: [
      {
        id: 'sample-coins',
        day: 155,
        user: "Sorting my grandfather's old coin collection this weekend.",
        assistant: 'Keep them in acid-free sleeves, and note the years as you go.',
        photo: { file: 'sk_coins.jpg', caption: 'a grid of old coins on a dark background' },
      },
      { id: 'sample-coins-value', day: 156, user: 'The coin dealer says the 1921 silver one is worth about 60 euros.', assistant: 'Noted: the 1921 silver coin, about 60 euros.' },
      {
        id: 'sample-optician',
        day: 158,
        user: 'Eye test today; the optician showed me the scan of my retina. All fine, new glasses at -1.25.',
        assistant: 'Good to hear. I will remember -1.25 for both eyes.',
        photo: { file: 'sk_retina.jpg', caption: 'a retina scan: an orange-red disc with blood vessels' },
      },
      {
        id: 'sample-sister-lab',
        day: 160,
        user: 'My sister works in a pathology lab; this is a stained tissue slide she showed me.',
        assistant: 'Fascinating. The brown stain marks the proteins they look for.',
        photo: { file: 'sk_ihc.jpg', caption: 'a microscope image of stained tissue in brown and blue' },
      },
      {
        id: 'sample-dunes',
        day: 165,
        user: 'A weekend by the sea: dune grass and the water behind it.',
        assistant: 'Looks like perfect weather for it.',
        photo: { file: 'mate_Dune.jpg', caption: 'tall dune grass with the sea and a blue sky behind' },
      },
      { id: 'sample-holiday-plan', day: 166, user: 'Next spring I would like to see the desert dunes in Morocco, maybe Merzouga.', assistant: 'Spring avoids the summer heat there; a night in a desert camp is worth it.' },
      { id: 'sample-book', day: 168, user: "I'm reading 'The Martian' again; it's my comfort book.", assistant: 'A great pick. The potato chapters never get old.' },
      { id: 'sample-glasses', day: 170, user: 'Picked up the new glasses; the frames are dark green.', assistant: 'Dark green frames, noted.' },
      { id: 'sample-cat-windowsill', day: 172, user: 'Chelsea has found a new spot: the windowsill above the radiator.', assistant: 'Warm and with a view; she chose well.' },
      { id: 'sample-cat-diet', day: 174, user: 'Chelsea has put on weight; I am cutting her kibble to a third of a cup.', assistant: 'Noted: Chelsea now gets a third of a cup of kibble.' },
      { id: 'sample-coffee-beans', day: 176, user: 'The cafe near the station sells its beans too: a Brazilian roast, 12 euros for 250 g.', assistant: 'Noted: Brazilian roast from the station cafe, 12 euros for 250 g.' },
      { id: 'sample-planetarium', day: 178, user: 'Mia visits next weekend; we are going to the planetarium.', assistant: 'Perfect for a future astronaut.' },
    ],
  },
];

/** Every photo the sample uses; `scripts/copy-assets.ts` copies these into `public/samples/`. */
export const SAMPLE_PHOTOS: readonly string[] = SAMPLE_SESSIONS.flatMap((session) => session.rounds.flatMap((round) => (round.photo ? [round.photo.file] : [])));
