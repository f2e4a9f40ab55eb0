import { afterAll, describe, expect, it } from 'vitest';
import { createInMemoryStorage, createMemory, createOpenAiProvider, describeImages, type VmemProgress } from 'vmem';
import { createNodeImageDescriber, nodeImageResizer } from 'vmem/node';
import { CONVERTER_VERSIONS } from '../encoders/model-formats.js';
import { completionBody, startFakeOpenAiServer } from '../llm/testing/fake-openai-server.js';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { readFixturePhoto } from '../testing/shared-data.js';

/** `add`'s two modes, the resumable background job, describer upgrades and the vision-LLM hand-over. */

const describer = createNodeImageDescriber({ ocr: false });
afterAll(() => describer.dispose());

const photoRound = (id: string, file: string) => ({
  id,
  user: { text: 'Look what I saw today!', images: [{ id: `img-${id}`, bytes: readFixturePhoto(file), mimeType: 'image/jpeg' }] },
});
const rounds = () => [photoRound('cat', 'sk_chelsea.jpg'), photoRound('horse', 'sk_horse.jpg'), { id: 'talk', user: { text: 'No picture here.' } }];

function describeEvents(events: readonly VmemProgress[]) {
  return events.filter((event) => event.task === 'describe');
}

/** loaded never decreases, never passes total, and the run ends with done at total. */
function expectWellFormed(events: readonly VmemProgress[]) {
  expect(events[0]?.status).toBe('initiate');
  expect(events.at(-1)?.status).toBe('done');
  const steps = events.filter((event) => event.status === 'progress');
  let last = 0;
  for (const step of steps) {
    expect(step.unit).toBe('images');
    expect(step.loaded).toBeGreaterThanOrEqual(last);
    expect(step.loaded).toBeLessThanOrEqual(step.total);
    last = step.loaded;
  }
  expect(steps.at(-1)).toMatchObject({ loaded: steps.at(-1)!.total });
}

describe("add({ describe: 'wait' })", () => {
  it('stores the descriptions with the rounds, reporting one step per picture', { timeout: 120_000 }, async () => {
    const events: VmemProgress[] = [];
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), describer, onProgress: (event) => events.push(event) });
    const [cat] = await memory.add(rounds());
    expect(cat!.user.images[0]!.derived?.text).toMatch(/\bcat\b/);
    const steps = describeEvents(events);
    expectWellFormed(steps);
    expect(steps.filter((event) => event.status === 'progress')).toHaveLength(2);
    expect(await memory.search({ signal: 'bm25', text: 'horse' })).toEqual([expect.objectContaining({ unitId: 'img-horse#derived' })]);
    await memory.close();
  });

  it('rejects the add, storing nothing, when a picture cannot be decoded', { timeout: 60_000 }, async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), describer });
    const broken = { id: 'broken', user: { text: 'hm', images: [{ bytes: new Uint8Array([0xff, 0xd8, 0xff, 0, 1]), mimeType: 'image/jpeg' }] } };
    await expect(memory.add([photoRound('cat', 'sk_chelsea.jpg'), broken])).rejects.toMatchObject({ code: 'IMAGE_DECODE_FAILED' });
    expect(memory.size).toBe(0);
    await memory.close();
  });
});

describe("add({ describe: 'background' }) and describePending", () => {
  it('returns before describing, then describes in the background with progress', { timeout: 120_000 }, async () => {
    const events: VmemProgress[] = [];
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), describer, describe: 'background', onProgress: (event) => events.push(event) });
    const added = await memory.add(rounds());
    expect(added[0]!.user.images[0]!.derived).toBeUndefined();
    const run = await memory.describePending();
    expect(run).toEqual({ described: 2, unreadable: 0 });
    expect((await memory.get('horse'))!.user.images[0]!.derived?.text).toMatch(/\bhorse\b/);
    expectWellFormed(describeEvents(events));
    expect(await memory.describePending()).toEqual({ described: 0, unreadable: 0 });
    await memory.close();
  });

  it('resumes an interrupted job when the memory is opened again', { timeout: 120_000 }, async () => {
    const storage = createInMemoryStorage();
    const first = await createMemory({ textEncoder: createHashTextEncoder(), describer, describe: 'background', storage });
    await first.add(rounds());
    // Closed before the background job got to any picture: the next open finds both still waiting.
    await first.close();
    expect((await first.rounds()).flatMap((round) => round.user.images).filter((image) => image.derived)).toEqual([]);

    const events: VmemProgress[] = [];
    const reopened = await createMemory({ textEncoder: createHashTextEncoder(), describer, storage, onProgress: (event) => events.push(event) });
    const run = await reopened.describePending();
    expect(run.described).toBe(2);
    expect((await reopened.get('cat'))!.user.images[0]!.derived?.by).toBe(describer.id);
    expectWellFormed(describeEvents(events));
    await reopened.close();
  });

  it('resumes on its own a few seconds after the memory opens, so a first question does not wait for the describer', { timeout: 120_000 }, async () => {
    const storage = createInMemoryStorage();
    const first = await createMemory({ textEncoder: createHashTextEncoder(), describer, describe: 'background', storage });
    await first.add(rounds());
    await first.close();

    const calls: number[] = [];
    const counting = { ...describer, id: describer.id, describe: (images: Parameters<typeof describer.describe>[0]) => (calls.push(Date.now()), describer.describe(images)) };
    const events: VmemProgress[] = [];
    const openedAt = Date.now();
    const reopened = await createMemory({ textEncoder: createHashTextEncoder(), describer: counting, storage, onProgress: (event) => events.push(event) });
    await reopened.retrieve('what did I see today?');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(calls).toEqual([]);
    await expect.poll(() => describeEvents(events).at(-1)?.status, { timeout: 60_000, interval: 200 }).toBe('done');
    expect(calls[0]! - openedAt).toBeGreaterThanOrEqual(2_900);
    expect((await reopened.get('horse'))!.user.images[0]!.derived?.by).toBe(describer.id);
    await reopened.close();
  });

  it('marks an unreadable picture as described with nothing seen, and does not retry it', { timeout: 60_000 }, async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), describer, describe: 'background' });
    await memory.add({ id: 'broken', user: { text: 'hm', images: [{ id: 'img-broken', bytes: new Uint8Array([0xff, 0xd8, 0xff, 0, 1]), mimeType: 'image/jpeg' }] } });
    expect(await memory.describePending()).toEqual({ described: 0, unreadable: 1 });
    expect((await memory.get('broken'))!.user.images[0]!.derived).toEqual({ by: describer.id, text: '', labelled: '' });
    expect(await memory.describePending()).toEqual({ described: 0, unreadable: 0 });
    await memory.close();
  });

  it('refuses when the memory has no describer', async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder() });
    await expect(memory.describePending()).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});

describe('a new describer', () => {
  it('re-describes the pictures and re-encodes only their derived units', { timeout: 120_000 }, async () => {
    const storage = createInMemoryStorage();
    const first = await createMemory({ textEncoder: createHashTextEncoder(), describer, storage });
    await first.add(rounds());
    await first.close();

    // A stricter detector: the cat (scored 0.55) is no longer named, the horse (0.68) still is.
    const upgraded = createNodeImageDescriber({ ocr: false, minScore: 0.6 });
    const textEncoder = createHashTextEncoder();
    const reopened = await createMemory({ textEncoder, describer: upgraded, storage });
    expect(reopened.encoders.describer).toEqual({ id: upgraded.id });
    expect(await reopened.describePending()).toEqual({ described: 2, unreadable: 0 });
    const cat = (await reopened.get('cat'))!.user.images[0]!.derived!;
    expect(cat.by).toBe(upgraded.id);
    expect(cat.text).not.toMatch(/\bcat\b/);
    expect((await reopened.get('horse'))!.user.images[0]!.derived?.text).toMatch(/\bhorse\b/);
    // Turn texts and the unchanged horse description kept their stored vectors: only the cat's new words were embedded.
    expect(textEncoder.encoded).toEqual([cat.text]);
    await reopened.close();
    expect(await storage.readManifest()).toMatchObject({ encoders: { describer: { id: upgraded.id } } });
  });
});

describe('a new CenterNet converter', () => {
  it('re-describes the pictures the previous converter version described', { timeout: 120_000 }, async () => {
    // The float16 CenterNet (converter vmem-onnx-1) described these pictures in an earlier release.
    expect(describer.id).toContain(`/centernet-mbv3-coco@human-3.3.6/${CONVERTER_VERSIONS.centerNet}/0.45/`);
    expect(CONVERTER_VERSIONS.centerNet).not.toBe('vmem-onnx-1');
    const previous = { ...describer, id: describer.id.replace(`/${CONVERTER_VERSIONS.centerNet}/`, '/vmem-onnx-1/') };
    const storage = createInMemoryStorage();
    const first = await createMemory({ textEncoder: createHashTextEncoder(), describer: previous, storage });
    await first.add(rounds());
    await first.close();

    const reopened = await createMemory({ textEncoder: createHashTextEncoder(), describer, storage });
    expect(await reopened.describePending()).toEqual({ described: 2, unreadable: 0 });
    for (const subject of ['cat', 'horse']) {
      const derived = (await reopened.get(subject))!.user.images[0]!.derived!;
      expect(derived.by).toBe(describer.id);
      expect(derived.text).toMatch(new RegExp(`\\b${subject}\\b`));
    }
    await reopened.close();
  });
});

describe('the vision-LLM description job', () => {
  it('replaces the machine-derived description with its caption, for good', { timeout: 120_000 }, async () => {
    const server = await startFakeOpenAiServer(() => ({ body: completionBody('Scene: a living room.\nObjects: a tabby cat on a sofa.') }));
    try {
      const memory = await createMemory({ textEncoder: createHashTextEncoder(), describer });
      await memory.add(photoRound('cat', 'sk_chelsea.jpg'));
      expect(await memory.search({ signal: 'bm25', text: 'brown cat' })).toEqual([expect.objectContaining({ unitId: 'img-cat#derived' })]);
      const llm = createOpenAiProvider({ baseUrl: server.url, model: 'vision', vision: true });
      await describeImages(memory, { llm, imageResizer: nodeImageResizer });
      const image = (await memory.get('cat'))!.user.images[0]!;
      expect(image.caption).toBe('a living room. a tabby cat on a sofa.');
      expect(image.derived).toEqual({ by: 'vision-llm', text: '', labelled: '' });
      const hits = await memory.search({ signal: 'bm25', text: 'cat' });
      expect(hits.map((hit) => hit.unitId)).toContain('img-cat#caption');
      expect(hits.map((hit) => hit.unitId)).not.toContain('img-cat#derived');
      expect(await memory.describePending()).toEqual({ described: 0, unreadable: 0 });
      await memory.close();
    } finally {
      await server.close();
    }
  });
});
