/**
 * The bundled sample conversation: real photos (copied into `samples/` at build) with chat text and
 * captions written for the demo. The motorcycle's right-hand view is kept out on purpose: it is the
 * photo visitors (and the e2e tests) use as an image query.
 */
import { VmemError, type RoundInput } from 'vmem';

interface SampleRound {
  readonly id: string;
  readonly day: number;
  readonly user: string;
  readonly assistant: string;
  readonly photo?: { readonly file: string; readonly caption: string };
}

const SAMPLE_START = Date.UTC(2025, 2, 1, 9, 30);
const DAY = 86_400_000;

const ROUNDS: readonly SampleRound[] = [
  { id: 'sample-hello', day: 0, user: "Hi! I'd like you to remember things for me: trips, hobbies, the odd photo.", assistant: "Happy to. Tell me whatever you'd like me to keep, and ask me about it any time." },
  {
    id: 'sample-cat',
    day: 1,
    user: 'This is my cat Chelsea. She is a tabby and sleeps on the radiator all winter.',
    assistant: 'Chelsea looks very relaxed! Tabby cats are often that curious.',
    photo: { file: 'sk_chelsea.jpg', caption: 'a tabby cat with green eyes looking up' },
  },
  { id: 'sample-vet', day: 3, user: "Chelsea's vet appointment is on the 14th, annual vaccines.", assistant: "Noted: vet on the 14th for Chelsea's annual vaccines." },
  {
    id: 'sample-coffee',
    day: 4,
    user: 'Tried a new cafe near the station; the flat white was excellent.',
    assistant: 'Nice find. Did they do latte art?',
    photo: { file: 'sk_coffee.jpg', caption: 'a cup of coffee with latte art on a saucer' },
  },
  {
    id: 'sample-motorcycle',
    day: 6,
    user: "Finally bought the motorcycle I've been saving for! Here it is in the garage.",
    assistant: 'Congratulations! Ride safe and keep up with the servicing.',
    photo: { file: 'sk_motorcycle_left.jpg', caption: 'a red and black motorcycle parked in a garage, seen from the left' },
  },
  { id: 'sample-helmet', day: 7, user: 'I need a new helmet for the bike, size M, something with good ventilation.', assistant: 'Look for ECE 22.06 certification and try it on before buying.' },
  {
    id: 'sample-rocket',
    day: 10,
    user: 'Watched a rocket launch on the big screen with friends tonight.',
    assistant: 'That must have been spectacular. Which mission was it?',
    photo: { file: 'sk_rocket.jpg', caption: 'a rocket lifting off from the launch pad with a bright plume of smoke' },
  },
  {
    id: 'sample-astronaut',
    day: 11,
    user: 'My niece wants to be an astronaut; I printed her this portrait for her wall.',
    assistant: "What a lovely gift. Space posters are great motivation.",
    photo: { file: 'sk_astronaut.jpg', caption: 'portrait of an astronaut in an orange spacesuit with a flag behind' },
  },
  {
    id: 'sample-horse',
    day: 14,
    user: 'Riding lesson today; this is the silhouette logo of the stable.',
    assistant: 'How did the lesson go?',
    photo: { file: 'sk_horse.jpg', caption: 'black silhouette of a horse on a white background' },
  },
  {
    id: 'sample-coins',
    day: 17,
    user: "Sorting my grandfather's old coin collection this weekend.",
    assistant: 'Keep them in acid-free sleeves, and note the years as you go.',
    photo: { file: 'sk_coins.jpg', caption: 'a grid of old coins on a dark background' },
  },
  {
    id: 'sample-ladybird',
    day: 20,
    user: 'Found a ladybird on the basil in the garden.',
    assistant: 'Good news: ladybirds eat aphids.',
    photo: { file: 'mate_LadyBird.jpg', caption: 'a red ladybird with black spots on a green leaf' },
  },
  {
    id: 'sample-storm',
    day: 22,
    user: 'Huge storm rolling in over the hills, power went out for an hour.',
    assistant: 'Hope everything is fine. Do you have candles and a torch ready?',
    photo: { file: 'mate_Storm.jpg', caption: 'dark storm clouds over a landscape' },
  },
  {
    id: 'sample-dunes',
    day: 30,
    user: 'Holiday planning: thinking about the desert dunes in Morocco next spring.',
    assistant: 'Merzouga is popular for the dunes; spring avoids the summer heat.',
    photo: { file: 'mate_Dune.jpg', caption: 'sand dunes with wind ripples under a clear sky' },
  },
  { id: 'sample-book', day: 31, user: "I'm reading 'The Martian' again, it's my comfort book.", assistant: 'A great pick. The potato chapters never get old.' },
];

/** Number of rounds in the sample conversation. */
export const SAMPLE_ROUND_COUNT = ROUNDS.length;

/**
 * Builds the sample rounds, fetching each photo from `baseUrl` (the app's `samples/` folder).
 * @example const rounds = await loadSampleConversation(new URL('samples/', location.href).href);
 */
export async function loadSampleConversation(baseUrl: string): Promise<RoundInput[]> {
  return Promise.all(
    ROUNDS.map(async (sample): Promise<RoundInput> => {
      const images = sample.photo ? [{ id: `${sample.id}-photo`, bytes: await fetchBytes(new URL(sample.photo.file, baseUrl).href), mimeType: 'image/jpeg', caption: sample.photo.caption }] : [];
      return {
        id: sample.id,
        sessionId: 'sample',
        timestamp: SAMPLE_START + sample.day * DAY,
        user: { text: sample.user, images },
        assistant: { text: sample.assistant },
      };
    }),
  );
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new VmemError('STORAGE_FAILED', `The sample photo ${url} could not be loaded (HTTP ${response.status}); rebuild the app with \`npm run build\`.`);
  return new Uint8Array(await response.arrayBuffer());
}
