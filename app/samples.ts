/**
 * Builds the sample conversation (app/sample-conversation.ts) into rounds, with its photos fetched
 * from the app's `samples/` folder. It is long enough that a question visibly selects: "what did my
 * cat look like?" brings back the cat rounds and the cat photo, not every picture in the memory.
 * The motorcycle's right-hand view is kept out on purpose: it is the photo visitors (and the e2e
 * tests) use as an image query.
 */
import { VmemError, type RoundInput } from 'vmem';
import { SAMPLE_SESSIONS, SAMPLE_START } from './sample-conversation.js';

const DAY = 86_400_000;
/** Rounds of one day are this far apart, in the order listed. */
const SAME_DAY_STEP = 40 * 60_000;

/**
 * Builds the sample rounds, fetching each photo from `baseUrl` (the app's `samples/` folder).
 * @example const rounds = await loadSampleConversation(new URL('samples/', location.href).href);
 */
export async function loadSampleConversation(baseUrl: string): Promise<RoundInput[]> {
  const rounds = SAMPLE_SESSIONS.flatMap((session) => session.rounds.map((sample) => ({ session: session.id, sample })));
  let previous: { day: number; at: number } | undefined;
  const times = rounds.map(({ sample }) => {
    const at = previous?.day === sample.day ? previous.at + SAME_DAY_STEP : SAMPLE_START + sample.day * DAY;
    previous = { day: sample.day, at };
    return at;
  });
  return Promise.all(
    rounds.map(async ({ session, sample }, index): Promise<RoundInput> => {
      const images = sample.photo ? [{ id: `${sample.id}-photo`, bytes: await fetchBytes(new URL(sample.photo.file, baseUrl).href), mimeType: 'image/jpeg', caption: sample.photo.caption }] : [];
      return {
        id: sample.id,
        sessionId: `sample-${session}`,
        timestamp: times[index]!,
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
