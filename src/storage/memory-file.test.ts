/**
 * `importMemory` checks a `.vmem` file completely before it writes anything: every damage a hand
 * edit or a cut-short download can do gets a typed error that names the part of the file, and no
 * memory is created. Through `vmem/browser`, over fake-indexeddb.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteMemory, importMemory, listMemories, openMemory } from 'vmem/browser';
import type { ImageEmbedder } from 'vmem';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { taggedPictureBytes } from '../testing/tagged-picture.js';
import { appendToPayload, editMemoryFile, type EditableMemoryFile } from './testing/memory-file-edit.js';

const imageEncoder: ImageEmbedder = { id: 'flat-image-8', dimension: 8, embed: async (images) => images.map(() => Float32Array.of(1, 0, 0, 0, 0, 0, 0, 0)) };
let exported: Uint8Array;

beforeAll(async () => {
  const memory = await openMemory('source', { encoders: { textEncoder: createHashTextEncoder(), imageEncoder } });
  await memory.add([
    { id: 'r1', user: { text: 'My cat Miso sleeps on the radiator', images: [{ id: 'miso', bytes: taggedPictureBytes('cat'), mimeType: 'image/jpeg' }] }, assistant: { text: 'Cosy!' } },
    { id: 'r2', user: { text: 'The car is parked on level two' } },
  ]);
  exported = new Uint8Array(await (await memory.export()).arrayBuffer());
  await memory.close();
});

afterAll(async () => {
  for (const name of await listMemories()) await deleteMemory(name);
});

const edited = (edit: (file: EditableMemoryFile) => void) => new Blob([editMemoryFile(exported, edit) as Uint8Array<ArrayBuffer>]);

const damage: [string, (file: EditableMemoryFile) => void, string, RegExp][] = [
  ['the units list removed', ({ header }) => delete header.units, 'INVALID_INPUT', /the header's units is missing/],
  ['rounds set to null', ({ header }) => (header.rounds = null), 'INVALID_INPUT', /the header's rounds is not a list/],
  ['a 7-byte vector', (file) => (file.header.units[0].vector = appendToPayload(file, new Uint8Array(7))), 'INVALID_INPUT', /units\[0\]\.vector is 7 bytes .* makes 64-d vectors/],
  ['a vector of the wrong dimension', (file) => (file.header.units[0].vector = appendToPayload(file, new Uint8Array(16))), 'INVALID_INPUT', /units\[0\]\.vector is 16 bytes \(4 dimensions\)/],
  ['a repeated round id', ({ header }) => (header.rounds[1].id = 'r1'), 'DUPLICATE_ROUND', /round "r1" twice \(rounds\[1\]\)/],
  ['counts that lie', ({ header }) => (header.counts.rounds = 20_003), 'INVALID_INPUT', /says it holds 20003 rounds but holds 2/],
  ['no manifest', ({ header }) => delete header.manifest, 'INVALID_INPUT', /has no manifest/],
  ['a payload cut short', (file) => (file.payload = file.payload.subarray(0, 100)), 'INVALID_INPUT', /points past the end of the file/],
  ['a round whose units were removed', ({ header }) => {
      header.units = header.units.filter((unit: { roundId: string }) => unit.roundId !== 'r2');
      header.counts.units = header.units.length;
    }, 'INVALID_INPUT', /round "r2" has text but no units/],
  ['a unit of a round the file lacks', ({ header }) => (header.units[0].roundId = 'ghost'), 'INVALID_INPUT', /units\[0\]\.roundId names round "ghost"/],
  ['a picture without its bytes', ({ header }) => {
      header.images = [];
      header.counts.images = 0;
    }, 'INVALID_INPUT', /image "miso" of round "r1" says it has bytes, but the file holds none/],
  ['a picture whose type was changed to HTML', ({ header }) => (header.images[0].mimeType = 'text/html'), 'UNSUPPORTED_FILE', /round "r1", image "miso" has type "text\/html"/],
];

describe('importMemory of a damaged .vmem file', () => {
  it('imports the file as exported', async () => {
    await importMemory('intact', new Blob([exported as Uint8Array<ArrayBuffer>]));
    const copy = await openMemory('intact', { encoders: { textEncoder: createHashTextEncoder(), imageEncoder } });
    expect(copy.rounds().map((round) => round.id)).toEqual(['r1', 'r2']);
    await copy.close();
  });

  it.each(damage)('refuses %s with a typed error naming the part, and creates no memory', async (_label, edit, code, message) => {
    const before = await listMemories();
    await expect(importMemory('damaged', edited(edit))).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
    expect(await listMemories()).toEqual(before);
  });
});
