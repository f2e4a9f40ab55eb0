import { readFileSync } from 'node:fs';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemory, createNoneProvider, createOpenAiProvider, type Memory, type RoundInput } from 'vmem';
import { nodeImageResizer } from 'vmem/node';
import { needsVisualDetail } from '../images/visual-question.js';
import { completionBody, startFakeOpenAiServer, type FakeHandler, type FakeOpenAiServer, type RecordedRequest } from '../llm/testing/fake-openai-server.js';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { FIXTURE_PHOTOS_DIR } from '../testing/shared-data.js';

const PHOTOS = FIXTURE_PHOTOS_DIR;
const photo = (name: string) => new Uint8Array(readFileSync(`${PHOTOS}/${name}`));

/** A smooth synthetic picture, larger than the 768 px limit. */
function syntheticRgba(width: number, height: number, alpha = 255): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      data[at] = (x * 255) / width;
      data[at + 1] = (y * 255) / height;
      data[at + 2] = 128;
      data[at + 3] = alpha;
    }
  }
  return data;
}
// Built once: encoding 2 megapixels with jpeg-js takes a moment.
const BIG_JPEG = new Uint8Array(jpeg.encode({ width: 1600, height: 1200, data: syntheticRgba(1600, 1200) }, 90).data);
const BIG_PNG = (() => {
  const png = new PNG({ width: 1000, height: 500 });
  png.data = Buffer.from(syntheticRgba(1000, 500));
  return new Uint8Array(PNG.sync.write(png));
})();
const bigJpeg = () => BIG_JPEG;
const bigPng = () => BIG_PNG;

const day = (n: number) => Date.UTC(2025, 2, n);
const conversation = (): RoundInput[] => [
  { id: 'r1', sessionId: 's1', timestamp: day(1), user: { text: 'We visited the sculpture garden downtown.', images: [{ id: 'sculpture', bytes: bigJpeg(), mimeType: 'image/jpeg', caption: 'a tall sculpture in a garden' }] } },
  { id: 'r2', sessionId: 's1', timestamp: day(1), user: { text: 'Coffee afterwards at the corner cafe.', images: [{ id: 'coffee', bytes: photo('sk_coffee.jpg'), mimeType: 'image/jpeg', caption: 'a cup of coffee' }] } },
  { id: 'r3', sessionId: 's1', timestamp: day(1), user: { text: 'My cat Chelsea napped all afternoon.', images: [{ id: 'cat', bytes: photo('sk_chelsea.jpg'), mimeType: 'image/jpeg', caption: 'a tabby cat' }] } },
  {
    id: 'r4',
    sessionId: 's2',
    timestamp: day(4),
    user: {
      text: 'The motorcycle I want to buy.',
      images: [
        { id: 'moto-left', bytes: photo('sk_motorcycle_left.jpg'), mimeType: 'image/jpeg', caption: 'a motorcycle, left side' },
        { id: 'moto-right', bytes: photo('sk_motorcycle_right.jpg'), mimeType: 'image/jpeg', caption: 'a motorcycle, right side' },
      ],
    },
  },
  { id: 'r5', sessionId: 's2', timestamp: day(4), user: { text: 'An old snapshot from the farm.', images: [{ id: 'horse', caption: 'a horse in a field' }] } },
  { id: 'r6', sessionId: 's2', timestamp: day(4), user: { text: 'My dentist appointment is on Tuesday at 3pm.' } },
  { id: 'r7', sessionId: 's3', timestamp: day(9), user: { text: 'The rocket launch poster.', images: [{ id: 'rocket', bytes: bigPng(), mimeType: 'image/png', caption: 'a rocket poster' }] } },
];

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A memory as a user builds it: the LLM and the resizer go to `createMemory`, answers come from `memory.answer`. */
async function setup(options: { handler?: FakeHandler; vision?: boolean; resizer?: boolean; rounds?: RoundInput[] } = {}) {
  server = await startFakeOpenAiServer(options.handler);
  const memory: Memory = await createMemory({
    textEncoder: createHashTextEncoder(),
    llm: createOpenAiProvider({ baseUrl: server.url, model: 'vision-test', vision: options.vision ?? true }),
    ...(options.resizer === false ? {} : { imageResizer: nodeImageResizer }),
  });
  await memory.add(options.rounds ?? conversation());
  return { memory, requests: server.requests };
}

interface SentImage {
  url: string;
  detail: string;
}

/** The image parts of the last message of a recorded chat request. */
function imagesOf(request: RecordedRequest | undefined): SentImage[] {
  const messages = (request?.body as { messages: { content: unknown }[] }).messages;
  const content = messages[messages.length - 1]!.content;
  if (typeof content === 'string') return [];
  return (content as { type: string; image_url?: SentImage }[]).filter((part) => part.type === 'image_url').map((part) => part.image_url!);
}

function decodeDataUrl(url: string): { mime: string; width: number; height: number } {
  const match = /^data:([^;]+);base64,(.*)$/.exec(url);
  expect(match).not.toBeNull();
  const decoded = jpeg.decode(Buffer.from(match![2]!, 'base64'), { useTArray: true });
  return { mime: match![1]!, width: decoded.width, height: decoded.height };
}

const contextTooLong = { status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens; your messages resulted in 9100 tokens." } } };

describe('answer: pictures for visual questions', () => {
  it('attaches up to 5 retrieved pictures as ≤768 px JPEG data URLs at low detail, the best hit first', async () => {
    const { memory, requests } = await setup();
    const result = await memory.answer({ text: 'What colour was the sculpture in the garden?' }, {});

    expect(requests).toHaveLength(1);
    const sent = imagesOf(requests[0]);
    expect(sent).toHaveLength(5);
    expect(result.attachedImages).toHaveLength(5);
    // Hit rounds in rank order (r1, r7, r4, r5, r2…); r5's caption-only horse cannot be attached.
    expect(result.attachedImages.map((ref) => ref.id)).toEqual(['sculpture', 'rocket', 'moto-left', 'moto-right', 'coffee']);
    expect(result.retrieval.trace.filter((entry) => !entry.neighbour).map((entry) => entry.roundId).slice(0, 5)).toEqual(['r1', 'r7', 'r4', 'r5', 'r2']);
    expect(result.skippedImages).toEqual([{ imageId: 'horse', reason: 'no-bytes' }]);
    for (const image of sent) {
      expect(image.detail).toBe('low');
      const decoded = decodeDataUrl(image.url);
      expect(decoded.mime).toBe('image/jpeg');
      expect(Math.max(decoded.width, decoded.height)).toBeLessThanOrEqual(768);
    }
    // The 1600×1200 original was shrunk, keeping its aspect ratio; 640 px photos keep their size.
    expect(decodeDataUrl(sent[0]!.url)).toMatchObject({ width: 768, height: 576 });
    expect(decodeDataUrl(sent[4]!.url)).toMatchObject({ width: 600, height: 400 });
    // The prompt tells the model which picture is which image.
    const text = JSON.stringify(requests[0]!.body);
    expect(text).toContain('picture 1 is image sculpture');
    expect(result.attachSkipped).toBeUndefined();
    expect(result.degraded).toBeUndefined();
  });

  it('respects maxImages and converts PNG to JPEG', async () => {
    const { memory, requests } = await setup();
    const result = await memory.answer({ text: 'What was written on the rocket poster?' }, { maxImages: 2 });
    const sent = imagesOf(requests[0]);
    expect(sent).toHaveLength(2);
    expect(result.attachedImages).toHaveLength(2);
    expect(result.attachedImages[0]!.id).toBe('rocket');
    expect(decodeDataUrl(sent[0]!.url)).toEqual({ mime: 'image/jpeg', width: 768, height: 384 });
  });

  it('sends no picture for a question about what was said', async () => {
    const { memory, requests } = await setup();
    const result = await memory.answer({ text: 'When is my dentist appointment?' }, {});
    expect(imagesOf(requests[0])).toEqual([]);
    expect(result.attachedImages).toEqual([]);
    expect(result.attachSkipped).toBe('not-visual');
  });

  it('attaches pictures when the question asks for a picture, skipping caption-only ones', async () => {
    const { memory, requests } = await setup();
    const question = 'Which photo showed the horse on the farm?';
    expect(needsVisualDetail(question)).toBe(false); // attached because the retrieval targets an image
    const result = await memory.answer({ text: question }, {});
    expect(result.retrieval.route.target).toBe('image');
    // The first call asks for a hypothetical caption (the text→image anchor); the second answers.
    expect(requests).toHaveLength(2);
    expect(imagesOf(requests[1]).length).toBeGreaterThan(0);
    expect(result.attachedImages.map((ref) => ref.id)).not.toContain('horse');
    expect(result.skippedImages).toContainEqual({ imageId: 'horse', reason: 'no-bytes' });
  });

  it('keeps text-only providers unchanged: no image parts at all', async () => {
    const { memory, requests } = await setup({ vision: false });
    const result = await memory.answer({ text: 'What colour was the sculpture?' }, {});
    const messages = (requests[0]!.body as { messages: { content: unknown }[] }).messages;
    expect(messages.every((message) => typeof message.content === 'string')).toBe(true);
    expect(result.attachSkipped).toBe('text-only-provider');
  });

  it('attaches nothing without a resizer, and says why', async () => {
    const { memory, requests } = await setup({ resizer: false });
    const result = await memory.answer({ text: 'What colour was the sculpture?' }, {});
    expect(imagesOf(requests[0])).toEqual([]);
    expect(result.attachSkipped).toBe('no-resizer');
  });

  it('honours attachImages: false', async () => {
    const { memory, requests } = await setup();
    const result = await memory.answer({ text: 'What colour was the sculpture?' }, { attachImages: false });
    expect(imagesOf(requests[0])).toEqual([]);
    expect(result.attachSkipped).toBe('disabled');
  });

  it('skips a picture that will not decode and attaches the rest', async () => {
    const broken = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5]);
    const rounds: RoundInput[] = [
      { id: 'a', user: { text: 'The blue vase', images: [{ id: 'broken', bytes: broken, mimeType: 'image/jpeg' }] } },
      { id: 'b', user: { text: 'The blue vase again', images: [{ id: 'cup', bytes: photo('sk_coffee.jpg'), mimeType: 'image/jpeg' }] } },
    ];
    const { memory, requests } = await setup({ rounds });
    const result = await memory.answer({ text: 'What colour was the vase?' }, {});
    expect(result.attachedImages.map((ref) => ref.id)).toEqual(['cup']);
    expect(result.skippedImages).toEqual([{ imageId: 'broken', reason: 'IMAGE_DECODE_FAILED' }]);
    expect(imagesOf(requests[0])).toHaveLength(1);
  });

  it('rejects a maxImages that is not a whole number', async () => {
    const { memory } = await setup();
    await expect(memory.answer({ text: 'What colour?' }, { maxImages: 2.5 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('answer: degrading after a context-length rejection', () => {
  it('retries with half the pictures and reports fewer-images', async () => {
    const { memory, requests } = await setup({ handler: (request) => (imagesOf(request).length > 2 ? contextTooLong : { body: completionBody('It was bronze.') }) });
    const result = await memory.answer({ text: 'What colour was the sculpture in the garden?' }, {});
    expect(requests.map(imagesOf).map((images) => images.length)).toEqual([5, 2]);
    expect(result.answer).toBe('It was bronze.');
    expect(result.degraded).toBe('fewer-images');
    expect(result.attachedImages.map((ref) => ref.id)).toEqual(['sculpture', expect.any(String)]);
    expect(result.retrieval.blocks.length).toBeGreaterThan(0);
  });

  it('falls back to text only, keeping the retrieval', async () => {
    const { memory, requests } = await setup({ handler: (request) => (imagesOf(request).length > 0 ? contextTooLong : { body: completionBody('Bronze, I think.') }) });
    const result = await memory.answer({ text: 'What colour was the sculpture in the garden?' }, {});
    expect(requests.map(imagesOf).map((images) => images.length)).toEqual([5, 2, 1, 0]);
    expect(result.degraded).toBe('text-only');
    expect(result.attachedImages).toEqual([]);
    expect(result.answer).toBe('Bronze, I think.');
    expect(result.retrieval.trace[0]!.roundId).toBe('r1');
  });

  it('rejects with LLM_CONTEXT_LENGTH when even the text alone is too long', async () => {
    const { memory, requests } = await setup({ handler: () => contextTooLong });
    await expect(memory.answer({ text: 'What colour was the sculpture?' }, {})).rejects.toMatchObject({ code: 'LLM_CONTEXT_LENGTH' });
    expect(requests).toHaveLength(4);
  });

  it('does not retry other errors', async () => {
    const { memory, requests } = await setup({ handler: () => ({ status: 500, body: { error: { message: 'boom' } } }) });
    await expect(memory.answer({ text: 'What colour was the sculpture?' }, {})).rejects.toMatchObject({ code: 'LLM_HTTP', status: 500 });
    expect(requests).toHaveLength(1);
  });
});

describe('answer: without an LLM', () => {
  it('the none provider still refuses, with advice', async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), llm: createNoneProvider(), imageResizer: nodeImageResizer });
    await memory.add(conversation());
    await expect(memory.answer({ text: 'What colour was the sculpture?' }, {})).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE' });
  });
});
