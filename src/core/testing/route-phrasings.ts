/*
 * Everyday phrasings of each retrieval case, written from how people ask a chat assistant about
 * their own history (none taken from a benchmark). One line each: the case, then flags, then the
 * question. Cases: `tt` text→text, `ti` text→image, `it` image+text→text (a picture attached, the
 * answer is talk), `ii` image+text→image (a picture attached, the answer is stored pictures).
 * Flags: `c` counting (asks for a count), `a` aggregation (gathers across the history), `x`
 * conflict (checks a statement against memory).
 */
export const ROUTE_PHRASINGS = String.raw`
tt | What did I say my sister's new job was?
tt | Where did I tell you I parked the car?
tt | What was the name of that Thai place I liked?
tt | When is my dentist appointment?
tt | What did you recommend for my sore knee?
tt | Remind me what I decided about the kitchen tiles
tt | What's my landlord's name again?
tt | Did I ever tell you what my dad does for work?
tt | What book was I reading in the summer?
tt | Which hotel did we pick for the Lisbon trip?
tt | What did I order last time?
tt | How much did I pay for the flights?
tt | How much food does Chelsea get now?
tt | What is the policy number of my bike insurance?
tt | What's the number of my hotel room?
tt | What is my phone number at work?
tt | How much sugar goes into my grandmother's cake recipe?
tt | How long did the drive to Porto take?
tt | Why did I cancel the gym membership?
tt | What was the password hint I mentioned?
tt | Who recommended the plumber to me?
tt | What did the doctor say about my blood pressure?
tt | What's the name of my son's teacher?
tt | Which laptop did I end up buying?
tt | What did I want to get Sam for his birthday?
tt | What were the symptoms I described last week?
tt | What time does my flight leave on Friday?
tt | What did we talk about yesterday?
tt | What did I do last weekend?
tt | What was I up to in March?
tt | What's the wifi password at the cabin?
tt | Where does my brother live now?
tt | What dish did I bring to the potluck?
tt | How did the job interview go?
tt | What was the outcome of the vet visit?
tt | What size shoes does my daughter wear?
tt | What did I name the new puppy?
tt | Which train did I take to the conference?
tt | Tell me again what the mechanic said about the brakes
tt | What was the budget we agreed on for the wedding?
tt | Any idea what I said about moving to Berlin?
tt | what was that podcast you suggested
tt | remind me of my mom's allergy
tt | Who was I supposed to call back?
tt | What's my blood type?
tt | What was the title of the film we watched?
tt | Did I mention where my cousin studies?
tt | What's the name of the cafe near my office?
tt | What did I say I'd cook for Sunday dinner?
tt | When did I start the new job?
tt | What's the recipe I wrote down for the lentil soup?
tt | What was my plan for the garden this year?
tt | How much did the car repair cost?
tt | How much water should the fern get?
tt | What's the account number for the electricity bill?
tt | What is the tracking number for my package?
tt | What was the room number at the clinic?
tt | What's the flight number for Tuesday?
tt | What did the landlord say about the deposit?
tt | What are my kids' names?
tt | Which dentist did I switch to?
tt | What did I say about my new manager?
tt | Where did we go for our anniversary?
tt | Why was I annoyed with the airline?
tt | What was the score of the match I watched?
tt | What were the three things I wanted to finish this month?
tt | Can you remind me what I promised Jenny?
tt | What language is my neighbour learning?
tt | What did the kids want for breakfast?
tt | What did I say the weather was like in Rome?
tt | Which supplements am I taking?
tt | What does my partner do for a living?
tt | What was the name of the hiking trail?
tt | How far is the lake from our house?
tt | What colour did I paint the bedroom?
tt | What kind of dog does my aunt have?
tt | What instrument does Leo play?
tt | Where did I leave off in the novel?
tt | What's my gym schedule?
tt | Which bank did I open the account with?
tt | Who did I say was coming to the party?
tt | How did I fix the leaking tap?
tt | What did I learn at the pottery class?
tt | What's the address of the new office?
tt | What was the issue with my tax return?
tt | What did I tell you about my knee surgery?
tt | Do you remember my favourite ice cream flavour?
tt | What do I usually have for lunch?
tt | What were we saying about the camping trip?
tt | What was the last thing I asked you?
tt | Which school did we choose for Mia?
tt | What's the model of my washing machine?
tt | What time does the pharmacy close?
tt | What was the name of the guy from the bike shop?
tt | What did I think of the new Italian restaurant?
tt | How did you suggest I handle the argument with my roommate?
tt | What did I say about the big picture for my career?
tt | Where did I buy the picture frame?
tt | What was the price of the sofa I liked?
tt | What day is the recycling collected?
tt | What was my reason for quitting coffee?
tt | Which streaming service did I cancel?
tt | What's the code for the garage door?
tt | How old is my niece?
tt | What was the dog's vaccination date?
tt | What flowers did I plant along the fence?
tt | What is the name of my dentist?
tt | Do you sell lawn mowers?
tt | What did I order?
tt | What did my boss say about the promotion?
tt | What was that word I couldn't remember?
tt | Which route did I say was faster to work?
tt | What did we decide about the holiday?
tt | Who's my emergency contact?
tt | What did I say was wrong with the car?
tt c a | How many times did I go swimming last month?
tt c a | How many books have I finished this year?
tt c a | How many people are coming to the barbecue?
tt c a | how many cups of coffee did I say I drink a day
tt c a | How many countries have I been to?
tt c a | How many kids does my coworker have?
tt c a | How many days off do I have left?
tt c | What's the number of times I've rescheduled the dentist?
tt c | What is the total number of classes I signed up for?
tt c | Count the restaurants I mentioned in Paris
tt c | How often do I water the tomatoes?
tt c | How often did I say I go running?
tt c a | Can you count how many meetings I had with Tom?
tt c a | How many hours did I sleep on average?
tt c | What's the number of guests we invited?
tt c | Give me a tally of the bills I paid in May
tt c a | How many different teas did I try?
tt c | Number of times I called the bank?
tt a | List all the restaurants I mentioned.
tt a | Please list the books you recommended to me
tt a | Can you list what I bought for the new flat?
tt a | List every doctor I've seen this year
tt a | In what ways did my training plan change?
tt a | list my upcoming deadlines
tt a | Could you list the gifts I got for Christmas?
tt a | List out the places we considered for the honeymoon
tt a | In what ways has my diet changed since January?
tt a | List the movies I said I want to watch
tt a | can you list all the passwords hints I gave you
tt a | List the symptoms I had before the diagnosis
tt x | Is it true that I'm allergic to peanuts?
tt x | Does this conflict with what I told you before: I have never been to Spain.
tt x | Did I contradict myself about my job?
tt x | Is that consistent with my earlier plans?
tt x | Was it true that I quit smoking in 2019?
tt x | Is it correct that my sister lives in Denver?
tt x | Fact-check this: I told you my car is blue.
tt x | Verify whether I said the meeting was on Monday
tt x | Is any of this inconsistent with what I said about the budget?
tt x | True or false: I ordered the blue sofa.
tt x | Does that statement match what I told you about my flight?
tt x | Are my two answers about the rent contradictory?
tt x | Is there a conflict between my calendar and the trip dates?
tt x | Was it right that I had booked the hotel for three nights?
tt x | Does the following claim hold: I paid the plumber in cash?
tt x | Is it accurate that I said I hate olives?
tt x | Verify that I mentioned my passport expires in June
tt x | Are there inconsistencies in what I told you about the accident?
tt x | Check whether this contradicts what I said: we adopted a cat.
tt x | Is this consistent with my last message about the deposit?

ti | cat photo
ti | Which photo showed the cat?
ti | Show me the picture of the red bicycle I sent last week
ti | Find the screenshot with the error message
ti | Which of my pictures were taken at the beach?
ti | Search for all the pictures of birds I sent
ti | Of the photos from the hike, which one has the waterfall?
ti | Among the images I sent in May, which ones show my garden?
ti | What did my cat look like?
ti | What does my new bike look like?
ti | What did the cake I baked look like?
ti | photos from the wedding
ti | the picture of my grandmother's house
ti | Pull up the selfie from the concert
ti | Find my passport photo
ti | Where's that pic of the sunset in Lisbon?
ti | Do you still have the photo of the receipt?
ti | Show me the drawing my son made
ti | Which sketch did I share of the living room layout?
ti | Can I see the photo of the parking spot?
ti | the image of the rash on my arm
ti | Send me the screenshot of the train tickets
ti | What did the damage on the car look like?
ti | What did the apartment look like?
ti | How did the garden look?
ti | Find the snapshot from our first date
ti | Get me the picture with the whiteboard notes
ti | Which image had the recipe card?
ti | The photo of the dog at the park, please
ti | Show my vacation pictures
ti | What did the hotel room look like in the pictures?
ti | Show me what the wedding cake looked like
ti | Look for the photo of my handwriting
ti | Do I have a picture of the broken window?
ti | Which pics were from the ski trip?
ti | Find images of the blue dress I liked
ti | What did my haircut look like?
ti | Where's the screenshot of the bank transfer?
ti | Dig up the photo of the lasagna
ti | Photo of the whiteboard from Tuesday's meeting
ti | screenshot of the error
ti | What did the puppy look like when we got him?
ti | Bring up the picture of the mountain cabin
ti | I need the photo of the car's VIN plate
ti | the pictures I took at the museum
ti | What did the painting I bought look like?
ti | What did Grandpa's old truck look like?
ti | Show me the poster for the festival
ti | Show me the illustration I drew for the book
ti | Which painting did I share from the gallery?
ti | Retrieve the image of the leaking pipe
ti | Get the snaps from Amy's birthday
ti | my kitchen renovation photos
ti | the sunset picture
ti | pictures of the baby
ti | What was in the photo I sent you of the fridge?
ti | Which photo had the menu in it?
ti | What did the rash look like last week?
ti | How did my tattoo look after it healed?
ti | What did the flat look like before we painted it?
ti | What does Max's bike look like?
ti | Find the photo where we're all on the boat
ti | Any pictures of the old house?
ti | Did I send you a photo of the broken lamp?
ti | What was the license plate in the picture I sent?
ti | The screenshot with the flight times
ti | Show me the selfie with my sister
ti | Look up the photos from Christmas morning
ti | What breed is the dog in the picture I sent you yesterday?
ti | What did the label say in the photo of the wine?
ti | I shared a picture of a mushroom, what was it?
ti | Which photograph did I take at the lighthouse?
ti | Where is the picture of my new glasses?
ti | Show me the photo from the graduation
ti | Find my picture of the parking ticket
ti | The image with the wiring diagram
ti | What did the bruise look like?
ti | That photo of the cat on the bookshelf
ti | What color was the car in the photo?
ti | Show the pictures of the kitchen
ti | Which screenshot had the confirmation code?
ti | What was written on the sign in the photo I shared?
ti | What did the mole on my back look like?
ti | What did the cookies look like when they came out?
ti | Give me the photo of the hiking map
ti | Display the picture of the birthday cake
ti | What did the venue look like?
ti | The picture of the plant with yellow leaves
ti | pics of the puppy
ti | photo of my desk setup
ti | What did my old car look like?
ti | What did the kids' costumes look like?
ti | Show me the pictures I took of the stars
ti | What was in the screenshot from the app?
ti | Find the image I sent of the spider
ti | My photos of the northern lights
ti | The photo I sent you of my passport page
ti | Which selfie did I like best?
ti | What did the dress I picked look like?
ti | What did the tent look like set up?
ti | What did the dog's injury look like?
ti | Where is the photo of the receipt from the hardware store?
ti | Show me the photos of the sofa options
ti | What did the new tiles look like?
ti | the snapshot of the whiteboard
ti | Can you find the picture of the cat sleeping in the sink?
ti | Photos of the view from the hotel
ti | Show me images of the flat in Madrid
ti | Where's that photo of the cake from Mia's party?
ti | what did the bathroom look like
ti | The screenshot of the chat with the landlord
ti | I want to see the picture of the old barn again
ti | What did my grandmother look like in the old photos?
ti | Which of the photos was taken in Rome?
ti | Find pictures of my mom
ti | Send me the pics of the car damage
ti | What did the fish I caught look like?
ti | Any photos of the garden from last summer?
ti | What's in the picture of my fridge?
ti | the cat pic
ti | dog photos
ti | Show me some photos of the beach house
ti | What did the mountains look like from the summit?
ti | What did Lily's drawing look like?
ti | Which image showed the parking sign?
ti | What did the shelves I built look like?
ti | What does the logo I designed look like?
ti | What did my room look like after the move?
ti | Look for pictures of the snowstorm
ti | Photo with the blue car
ti | Where are the screenshots of my exam results?
ti | Find the image with the handwritten note
ti | The photograph of the family at the lake
ti | Show me what the new couch looks like
ti | Let me see the pictures of the wedding venue
ti c a | How many photos of sunsets did I share?
ti c a | How many pictures did I send from the trip?
ti c a | How many selfies are in my memory?
ti c | What's the number of photos I shared of the cat?
ti c a | How many screenshots did I send you this week?
ti c a | How many of my photos show the dog?
ti c | Count the pictures of the garden
ti c | How often did I send you photos of food?
ti c a | How many images did I share in May?
ti c a | How many photos have the kids in them?
ti a | List all the photos from the beach
ti a | List the pictures I sent of the house
ti a | Can you list every screenshot of receipts?
ti a | List out the photos of my cooking
ti a | list the selfies I took in Paris
ti x | Is it true that the photo I sent of the car shows a dent?
ti x | Was it true that my cat looked grey in the pictures?
ti x | Does this conflict with the photo I sent: the fence is white.
ti x | Is that consistent with the picture of the receipt?

it | What did I say about this photo?
it | What breed is the dog in the attached picture?
it | When did we talk about what is in the picture?
it | What is written on the sign in this image?
it | When did I talk about this?
it | What is this?
it | Where was this taken?
it | Who is this?
it | Do you remember this?
it | What did you tell me about this plant?
it | Is this the mushroom I asked about before?
it | What's the name of this dish?
it | When did I buy this?
it | How much did I pay for this?
it | What did we say about this last time?
it | Have we talked about this before?
it | What did the vet say about this rash?
it | What's this bird called again?
it | Where did I get this jacket?
it | What is the name of the building in this photo?
it | What did I name this plant?
it | Remind me what this is for
it | What did I decide about this sofa?
it | What did you suggest I do about this stain?
it | Who gave me this?
it | Which shop sells this?
it | What was the problem with this part?
it | What was the recipe for this cake?
it | What was the result of fixing this?
it | Which trail is this?
it | What's this place called?
it | What did I say this cost?
it | What species is this flower?
it | What's the model of this camera?
it | When was I last here?
it | What did my friend say about this painting?
it | What did you say was wrong with this tyre?
it | What's the name of the product in the picture?
it | Which company makes the product in this image?
it | Tell me about this
it | What do I know about this?
it | what is in this picture
it | What city is this?
it | Who made this?
it | Did I already ask you about this?
it | What happened here?
it | What did I call this?
it | What is the dog in the photo doing?
it | What is the brand of the shoes in the picture?
it | What did I say about the person in this photo?
it | Whose car is this?
it | What wine is this?
it | Which restaurant served this?
it | What's the story behind this?
it | When did we visit this place?
it | How old was the kid in this picture?
it | What was I doing when I took this?
it | What's this dish called in Italian?
it | Did I say this was safe to eat?
it | What does this sign mean?
it | Where can I buy another one of these?
it | What did I say about this outfit?
it | What did the doctor think about this?
it | What kind of tree is this?
it | Which museum is this from?
it | What did I want to do with this?
it | Is this the one I ordered?
it | Who painted this?
it | What did I say about the view here?
it | Which of my friends lives here?
it | What's the name of this band?
it | Who's in the photo?
it | What's the title of this book?
it | How did I make this?
it | What was this for again?
it | When is this event?
it | What's the score on this screenshot?
it | What does the error in this screenshot mean?
it | What did I say about the error in this screenshot?
it | What did the mechanic say about this noise?
it | What am I looking at?
it | What's going on in this picture?
it | Where did we eat this?
it | What's the name of the cat in this photo?
it | What did I do with this?
it | Why did I save this?
it | What did I say about this building?
it | What was the verdict on this mole?
it | Remind me what this thing is
it c | Which plant is this and how often should I water it?
it | What is the dog in the attached photo called?
it | What did I say this dress was for?
it | Did I already have one of these?
it | What did the seller say about this lamp?
it | What's this trail's name?
it | What is written on this label?
it | What did I think of this place?
it | What does this look like to you?
it | What is this used for?
it | Was this the hotel we stayed in?
it | What's the dog's breed in the attached image?
it | Whose handwriting is this?
it | When did I send you this?
it | What did I say when I sent this?
it | Who did I say took this?
it | What's the name of this game?
it | Who is the person on the left in this picture?
it | How much does this cost?
it | Is this the same plumber's invoice I mentioned?
it | What did the kids call this?
it | What ingredients did I use here?
it | What did I say the name of this street was?
it | Did we ever fix this?
it | What is this app?
it | What's the password for this account?
it | What did you say about this colour?
it | Which flight is this?
it | What time did this start?
it | Whose dog is this?
it | Where did I park here?
it | What did I say about this chair's price?
it | What's this rash?
it | What mountain is this?
it | Why is this important?
it | Have I mentioned this recipe before?
it | What did I say about this car?
it | Which one of my cousins is this?
it | What did the tag say?
it | What did I write on this?
it | Is this in my calendar?
it | What's the answer to the question in this screenshot?
it | What was the conclusion about this painting?
it | What's the name of the artist of this poster?
it | What did I plant in this bed?
it | What brand is this?
it | Which dress is this one?
it | How did this go?
it | What did I promise about this?
it | Who recommended this?
it | What do you remember about this?
it | What did I say about what's shown here?
it | What did my sister think of this?
it | What happened to this?
it | When was this photo taken?
it | Where was this picture taken?
it c a | How many times have we talked about this?
it c | How often have I mentioned this plant?
it c a | How many of these did I say I bought?
it c | What's the number of times I asked about this?
it a | List everything I said about this
it a | List all the times we discussed this dish
it a | Can you list what I told you about this place?
it x | Is it true that this is the same dog I told you about?
it x | Does this conflict with what I said about the sofa?
it x | Is this consistent with what I told you about the leak?
it x | Was it true that I said this was broken?
it x | Does this contradict what I said about the colour of the car?
it x | Verify whether this is the receipt I mentioned

ii | Please look for images of the same flower as this one
ii | Which earlier image shows the same building as this one?
ii | Find the photo I shared that looks like this
ii | Have I sent you a picture of this before?
ii | Do I have other photos of this place?
ii | Find similar pictures
ii | Show me photos like this one
ii | Any other pictures of this dog?
ii | Which of my photos shows the same bridge?
ii | Find more pictures of this cat
ii | Have I shared anything that looks like this?
ii | Did I send you a similar photo before?
ii | Look for pictures of the same car
ii | Show me my other photos from here
ii | Find the image that matches this
ii | Is there a photo of this room from before?
ii | Find the picture I took of this on our trip
ii | Which photo did I send of this plant last year?
ii | Show me earlier photos of this rash
ii | Have I shown you pictures of this building?
ii | Do you have other images of this?
ii | Find the screenshot that looks like this one
ii | Which picture is most similar to this?
ii | Search my photos for this person
ii | Show me pictures similar to this
ii | Find me the photo where this lamp appears
ii | Any photos of this street?
ii | Find pictures of this view at night
ii | show me more photos of this
ii | pictures like this
ii | similar photos
ii | Which selfie did I take here?
ii | Find the other photo of the same sunset
ii | Have I sent a picture of this dish before?
ii | Did I share photos of this trail before?
ii | Find the picture of this mountain from last summer
ii | Where's the photo I took of this painting?
ii | Find photos that look like this
ii | What other pictures do I have of this bird?
ii | Show me the same view in my photos
ii | Have I sent you a screenshot like this?
ii | Find the pic of this car from the dealership
ii | Find images of the same dress
ii | Show me other pictures of my garden like this one
ii | Do I have any photos of this beach?
ii | Which of the pictures I sent shows this same tree?
ii | Find the earlier photo of this mole
ii | Where is the picture of this cat when it was a kitten?
ii | Show me the photos of this house from the listing
ii | Find the photo I sent of this same cake
ii | Are there pictures of this lake in winter?
ii | Find photos of this person from the party
ii | Show me the photo of this receipt I sent before
ii | Did I take a picture of this last time?
ii | Find the snapshot of this whiteboard from the earlier meeting
ii | Show pictures from the same trip as this
ii | Look up photos of this shop
ii | Do I have a photo of this in better light?
ii | Which photo of the dog looks like this one?
ii | Find the screenshot of this error from last week
ii | Show me all pictures of this street at night
ii | Any similar images of the kitchen?
ii | Find a photo of this flower in bloom
ii | Other photos of this statue?
ii | I think I sent a picture of this, find it
ii | Find where I posted a photo of this before
ii | Is there a picture of this bike when it was new?
ii | Do you have a photo of this spot from the summer?
ii | Search for images resembling this
ii | Find images like this one
ii | Show me photos that resemble this
ii | What earlier photo shows this same room?
ii | Show me the picture of this desk before I painted it
ii | Find photos of this car's dent from before
ii | Do we have any pictures of this in the snow?
ii | Show me the photos I took at this spot
ii | Find the photo of the same wall
ii | Look for photos of this cat
ii | Where's the picture of this tree from spring?
ii | Find photos of this boat
ii | Search for pictures of this plant's leaves
ii | Get me other pics of this lake
ii | Show the pictures of this park
ii | Find a picture of this dog as a puppy
ii | Any older photos of this kitchen?
ii | Which of my pictures were taken here?
ii | Find the photo that matches this screenshot
ii | Show me other screenshots like this
ii | Find pictures with this same logo
ii | Search my pictures for this logo
ii | Which photo shows this person smiling?
ii | Find all pictures of this building
ii | Where are the photos of this sofa in the showroom?
ii | Find the photo from the day this was delivered
ii | Have I uploaded a photo of this before?
ii | Bring up the photos of this same beach
ii | Find the pics of this hike
ii | Are there more photos like this in my memory?
ii | Show me any pictures that look like this one
ii | Dig up older photos of this garden
ii | Find the picture of this bridge at sunset
ii | Show me the photos of this cake from last year
ii | Which image of my room looks most like this?
ii | Find the photo of this stain before cleaning
ii | Show me similar screenshots
ii | Are there any matching photos?
ii | Find photos similar to this one from the trip
ii | Find me pictures of this cat sleeping
ii | Show other photos of this rash from the start
ii | Find the photo of this place from our honeymoon
ii | Did I send pictures of this before the repair?
ii | What photos do I have of this church?
ii | Which pictures show this same jacket?
ii | Show me the selfie I took with this statue
ii | Find the earlier screenshot of this chart
ii | Look up pictures of this fish
ii | Find pictures of this tattoo before it healed
ii | Have I shared a photo of this painting?
ii | Find photos of this bird from the feeder
ii | Find the pictures of this tent from the camping trip
ii | Show me the photos of this puppy
ii | Show me the photos of this flat before we moved in
ii | Find a snapshot of this street from last year
ii | Any drawings like this one?
ii | Show me sketches similar to this
ii | Find the painting that looks like this
ii | Search for photos of the same mountain
ii | Find photos of this dress on me
ii | Do I have a picture of this car from the front?
ii | Find the images of this lamp from the store
ii | Show me pictures of this trail in autumn
ii | Find me similar pics
ii | Look for a similar picture
ii | Find photos with the same view
ii | Show me photos that look like this place
ii | Find pictures of the same bird
ii | Which photo looks like this one?
ii | Did I ever take a photo like this?
ii | Find other photos from this concert
ii | Show me pictures taken at the same place as this
ii c a | How many photos of this dog have I shared?
ii c a | How many pictures of this place did I send?
ii c | What's the number of photos like this?
ii c | Count the pictures that look like this
ii c a | How many times did I send a photo of this?
ii a | List all the photos of this cat
ii a | List the pictures similar to this
ii a | Can you list every photo of this building?
ii x | Is it true that I sent a photo of this before?
ii x | Does this picture contradict the photo I sent last week?
`;

/** One phrasing with what it should be routed to. */
export interface RoutePhrasing {
  readonly question: string;
  readonly hasImage: boolean;
  readonly case: 'text-to-text' | 'text-to-image' | 'image+text-to-text' | 'image+text-to-image';
  readonly counting: boolean;
  readonly aggregation: boolean;
  readonly conflict: boolean;
}

const CASES = { tt: 'text-to-text', ti: 'text-to-image', it: 'image+text-to-text', ii: 'image+text-to-image' } as const;

/** The phrasings above, parsed. */
export function routePhrasings(): RoutePhrasing[] {
  return ROUTE_PHRASINGS.split('\n')
    .filter((line) => line.includes('|'))
    .map((line) => {
      const [head, ...question] = line.split('|');
      const [code, flags = ''] = head!.trim().split(/\s+(.*)/);
      const theCase = CASES[code as keyof typeof CASES];
      if (!theCase) throw new Error(`Unknown case "${code}" in "${line}"`);
      return {
        question: question.join('|').trim(),
        hasImage: code!.startsWith('i'),
        case: theCase,
        counting: flags.includes('c'),
        aggregation: flags.includes('a'),
        conflict: flags.includes('x'),
      };
    });
}
