import { afterEach, describe, expect, it } from 'vitest';
import type { VmemProgress } from '../progress.js';
import { nodeImageResizer } from '../images/node-resize.js';
import { createOpenAiProvider } from '../llm/openai.js';
import { completionBody, startFakeOpenAiServer, type FakeHandler, type FakeOpenAiServer } from '../llm/testing/fake-openai-server.js';
import { createMemory } from '../memory/memory.js';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { describeImages, type DescribeState, type DescribeTarget } from './describe.js';
import { joinDescription, parseDescription } from './prompt.js';
import { readFixturePhoto } from '../testing/shared-data.js';

const photo = readFixturePhoto;

describe('parseDescription', () => {
  it('strips labels, keeps the order scene, objects, people, text', () => {
    const reply = '**Scene:** a city street at dusk, light rain\n- **Objects:** two red umbrellas, a yellow taxi\nPeople: a man in a grey coat waiting at the kerb\nText: "NO PARKING", "Bus 42"';
    const parts = parseDescription(reply);
    expect(parts).toEqual({
      scene: 'a city street at dusk, light rain',
      objects: 'two red umbrellas, a yellow taxi',
      people: 'a man in a grey coat waiting at the kerb',
      text: '"NO PARKING", "Bus 42"',
    });
    expect(joinDescription(parts)).toBe('a city street at dusk, light rain. two red umbrellas, a yellow taxi. a man in a grey coat waiting at the kerb. "NO PARKING", "Bus 42"');
  });

  it('omits parts that only say something is absent, and drops negated items', () => {
    const reply = 'Scene: a kitchen counter, indoors.\nObjects: a white mug, no plates; one green apple.\nPeople: None.\nText: There is no readable text.';
    const caption = joinDescription(parseDescription(reply));
    expect(caption).toBe('a kitchen counter, indoors. a white mug, one green apple.');
    expect(caption).not.toMatch(/\bno\b|none/i);
  });

  it('reads an unlabelled reply as the scene and continues unlabelled lines', () => {
    expect(parseDescription('A cat asleep on a blue sofa.')).toEqual({ scene: 'A cat asleep on a blue sofa.' });
    expect(parseDescription('Objects: a brown horse,\na wooden fence')).toEqual({ objects: 'a brown horse, a wooden fence' });
  });
});

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const DESCRIPTION = 'Scene: indoors, a living room.\nObjects: a tabby cat, a grey sofa.\nPeople: there are no people.\nText: none';

async function setup(handler?: FakeHandler) {
  server = await startFakeOpenAiServer(handler ?? (() => ({ body: completionBody(DESCRIPTION) })));
  const memory = await createMemory({ textEncoder: createHashTextEncoder() });
  await memory.add([
    { id: 'r1', user: { text: 'my cat', images: [{ id: 'cat', bytes: photo('sk_chelsea.jpg'), mimeType: 'image/jpeg' }] } },
    { id: 'r2', user: { text: 'coffee', images: [{ id: 'coffee', bytes: photo('sk_coffee.jpg'), mimeType: 'image/jpeg', caption: 'a cup of coffee' }] } },
    { id: 'r3', user: { text: 'old one', images: [{ id: 'horse', caption: 'a horse' }] } },
    { id: 'r4', user: { text: 'bike', images: [{ id: 'bike', bytes: photo('sk_motorcycle_left.jpg'), mimeType: 'image/jpeg' }] } },
    { id: 'r5', user: { text: 'broken', images: [{ id: 'broken', bytes: new Uint8Array([0xff, 0xd8, 0xff, 0, 1]), mimeType: 'image/jpeg' }] } },
  ]);
  const captions = new Map<string, string>();
  const target: DescribeTarget = {
    rounds: () => memory.rounds(),
    getImage: (id) => memory.getImage(id),
    setCaption: async (id, caption) => void captions.set(id, caption),
  };
  const llm = createOpenAiProvider({ baseUrl: server.url, model: 'vision', vision: true });
  return { target, captions, llm, requests: server.requests };
}

describe('describeImages', () => {
  it('describes only images with bytes and no caption, sending each as a JPEG at low detail', async () => {
    const { target, captions, llm, requests } = await setup();
    const events: VmemProgress[] = [];
    const result = await describeImages(target, { llm, imageResizer: nodeImageResizer, onProgress: (event) => events.push(event) });

    expect([...captions.keys()]).toEqual(['cat', 'bike']);
    expect(captions.get('cat')).toBe('indoors, a living room. a tabby cat, a grey sofa.');
    expect(requests).toHaveLength(2); // the broken file never reaches the LLM
    const part = (requests[0]!.body as { messages: { content: { type: string; image_url?: { url: string; detail: string } }[] }[] }).messages[1]!.content[1]!;
    expect(part.image_url!.url).toMatch(/^data:image\/jpeg;base64,/);
    expect(part.image_url!.detail).toBe('low');
    expect(result.state.failed).toEqual([{ imageId: 'broken', reason: 'decode-failed' }]);
    expect(result).toMatchObject({ described: 2, total: 3 });
    expect(events.at(-2)).toEqual({ status: 'progress', task: 'describe', loaded: 3, total: 3, unit: 'images' });
    expect(events.at(-1)).toEqual({ status: 'done', task: 'describe' });
  });

  it('stops on an LLM failure and resumes from the saved state without redoing work', async () => {
    let calls = 0;
    const { target, captions, llm, requests } = await setup(() => (++calls === 2 ? { status: 500, body: { error: { message: 'overloaded' } } } : { body: completionBody(DESCRIPTION) }));
    let saved: DescribeState | undefined;
    await expect(describeImages(target, { llm, imageResizer: nodeImageResizer, onState: (state) => void (saved = state) })).rejects.toMatchObject({ code: 'LLM_HTTP' });
    expect(saved).toEqual({ described: ['cat'], failed: [] });

    const result = await describeImages(target, { llm, imageResizer: nodeImageResizer, resumeFrom: saved! });
    expect(result.state.described).toEqual(['cat', 'bike']);
    expect(result).toMatchObject({ described: 1, total: 2 });
    expect(requests).toHaveLength(3); // cat, bike (failed), bike again: the cat is not described twice
    expect([...captions.keys()]).toEqual(['cat', 'bike']);
  });

  it('records an empty description as a failure instead of storing it', async () => {
    const { target, captions, llm } = await setup(() => ({ body: completionBody('People: none.\nText: N/A') }));
    const result = await describeImages(target, { llm, imageResizer: nodeImageResizer });
    expect(captions.size).toBe(0);
    expect(result.state.failed.map((item) => item.reason)).toEqual(['empty-description', 'empty-description', 'decode-failed']);
  });

  it('needs a vision LLM', async () => {
    const { target } = await setup();
    const textOnly = createOpenAiProvider({ baseUrl: server!.url, model: 'text' });
    await expect(describeImages(target, { llm: textOnly, imageResizer: nodeImageResizer })).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE' });
  });
});
