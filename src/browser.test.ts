/**
 * `vmem/browser` through its public entry, over fake-indexeddb and test encoders (the encoder worker
 * itself is covered by the e2e specs in Chromium).
 */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { deleteMemory, importMemory, listMemories, openMemory, type BrowserMemory, type RemoteChange } from 'vmem/browser';
import { createHashTextEncoder } from './testing/hash-encoder.js';

const opened: BrowserMemory[] = [];
const names = new Set<string>();

/** Opens `name` with a counting test encoder, closed and deleted after the test. */
async function open(name: string, options: Parameters<typeof openMemory>[1] = {}) {
  names.add(name);
  const textEncoder = createHashTextEncoder();
  const memory = await openMemory(name, { encoders: { textEncoder }, ...options });
  opened.push(memory);
  return { memory, textEncoder };
}

afterEach(async () => {
  for (const memory of opened.splice(0)) await memory.close();
  for (const name of names) await deleteMemory(name);
  names.clear();
});

/** Resolves with the next change `onRemoteChange` reports. */
function nextChange() {
  let report: (change: RemoteChange) => void = () => {};
  const seen = new Promise<RemoteChange>((resolve) => {
    report = resolve;
  });
  return { onRemoteChange: (change: RemoteChange) => report(change), seen };
}

const ROUNDS = [
  { id: 'r1', user: { text: 'My cat Miso sleeps on the radiator' }, assistant: { text: 'Cosy!' } },
  { id: 'r2', user: { text: 'The car is parked in the garage on level two' } },
];

describe('openMemory', () => {
  it('keeps rounds in IndexedDB: reopened, the same question gives the same result with nothing re-encoded', async () => {
    const first = await open('persisted');
    await first.memory.add(ROUNDS);
    const before = await first.memory.retrieve('where does the cat sleep?');
    await first.memory.close();

    const again = await open('persisted');
    expect(again.memory.size).toBe(2);
    expect(again.textEncoder.calls).toBe(0);
    expect(await again.memory.retrieve('where does the cat sleep?')).toEqual(before);
    // Only the question was encoded (as typed and as its content words).
    expect(again.textEncoder.encoded).toEqual(['where does the cat sleep?', 'the cat sleep']);
    expect(await listMemories()).toContain('persisted');
  });

  it("with storage: 'memory' forgets everything on close", async () => {
    const first = await open('ephemeral', { storage: 'memory' });
    await first.memory.add(ROUNDS);
    expect(first.memory.storage).toBe('memory');
    await first.memory.close();
    expect(await listMemories()).not.toContain('ephemeral');
    expect((await open('ephemeral', { storage: 'memory' })).memory.size).toBe(0);
  });

  it('says where custom encoders run, and has no worker for them', async () => {
    const { memory } = await open('custom');
    expect(memory.name).toBe('custom');
    expect(memory.backend).toBe('custom');
    expect(memory.backendReason).toMatch(/^custom: /);
    expect(memory.worker).toBeUndefined();
  });

  it('refuses a memory built by other encoders with ENCODER_MISMATCH, and leaves it as it was', async () => {
    const first = await open('mismatch');
    await first.memory.add(ROUNDS);
    await first.memory.close();
    const other = createHashTextEncoder({ id: 'other-encoder' });
    await expect(openMemory('mismatch', { encoders: { textEncoder: other } })).rejects.toMatchObject({ code: 'ENCODER_MISMATCH' });
    // Refusing it changed nothing: with its own encoders it opens as it was.
    expect((await open('mismatch')).memory.size).toBe(2);
  });

  it('rejects bad options with INVALID_INPUT', async () => {
    const encoders = { textEncoder: createHashTextEncoder() };
    await expect(openMemory('', { encoders })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(openMemory('x', { encoders, storage: 'disk' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/storage must be one of/) });
    await expect(openMemory('x', { encoders: {} as never })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/needs a textEncoder/) });
    await expect(openMemory('x', { backend: 'gpu' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/backend must be one of/) });
  });

  it("reloads itself after another tab's write, and closes when another tab deletes it", async () => {
    const writer = await open('shared');
    const change = nextChange();
    const reader = await open('shared', { onRemoteChange: change.onRemoteChange });
    await writer.memory.add(ROUNDS[0]!);
    expect(await change.seen).toEqual({ type: 'reloaded' });
    expect(reader.memory.size).toBe(1);
    expect(reader.textEncoder.calls).toBe(0);
    // A verb kept in a variable reaches the reloaded memory too.
    const retrieve = reader.memory.retrieve;
    expect((await retrieve('where does the cat sleep?')).trace[0]?.roundId).toBe('r1');

    const deleted = nextChange();
    const watcher = await open('shared', { onRemoteChange: deleted.onRemoteChange });
    await writer.memory.close();
    await reader.memory.close();
    await deleteMemory('shared');
    expect(await deleted.seen).toEqual({ type: 'deleted' });
    await expect((async () => watcher.memory.add(ROUNDS[1]!))()).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('a closed memory says to open it again with openMemory, for reads and writes alike', async () => {
    const { memory } = await open('closing');
    await memory.add(ROUNDS[0]!);
    await memory.close();
    const advice = expect.stringContaining('open it again with openMemory("closing")');
    await expect(memory.retrieve('cat')).rejects.toMatchObject({ code: 'CLOSED', message: advice });
    await expect(memory.add(ROUNDS[1]!)).rejects.toMatchObject({ code: 'CLOSED', message: advice });
  });
});

/** A test encoder whose calls wait until `release()`, so a test can write elsewhere meanwhile. */
function heldEncoder() {
  const inner = createHashTextEncoder();
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started = () => {};
  const called = new Promise<void>((resolve) => {
    started = resolve;
  });
  const textEncoder = {
    ...inner,
    embed: async (texts: readonly string[]) => {
      started();
      await released;
      return inner.embed(texts);
    },
  };
  return { textEncoder, inner, called, release };
}

const longImport = (count: number) => Array.from({ length: count }, (_, at) => ({ id: `import-${at}`, user: { text: `Imported line ${at} about the garden` } }));

describe('two tabs adding at once', () => {
  it.each([
    ['', {}],
    [' (encrypted)', { encryption: { passphrase: 'two tabs' } }],
  ])('a long add survives a write in another tab%s: both tabs end with every round once, in commit order, nothing re-encoded', async (_, lock) => {
    names.add('import-race');
    const held = heldEncoder();
    const reloaded = nextChange();
    const importing = await openMemory('import-race', { encoders: { textEncoder: held.textEncoder }, onRemoteChange: reloaded.onRemoteChange, ...lock });
    opened.push(importing);
    const other = await open('import-race', lock);

    const imported = importing.add(longImport(40));
    await held.called;
    await other.memory.add({ id: 'typed-meanwhile', user: { text: 'Typed in the other tab during the import' } });
    held.release();
    expect(await imported).toHaveLength(40);
    expect(await reloaded.seen).toEqual({ type: 'reloaded' });

    const ids = (await importing.rounds()).map((round) => round.id);
    expect(ids).toEqual(['typed-meanwhile', ...longImport(40).map((round) => round.id)]);
    await expect.poll(() => other.memory.size).toBe(41);
    expect((await other.memory.rounds()).map((round) => round.id)).toEqual(ids);
    // Each imported round was encoded once, before the other tab wrote; the reloads read vectors back.
    expect(held.inner.encoded).toHaveLength(40);
    expect(new Set((await importing.rounds()).map((round) => round.seq)).size).toBe(41);
  });

  it('refuses a round the other tab stored meanwhile with DUPLICATE_ROUND, and with concurrentAdds: "refuse" any add with MEMORY_LOCKED', async () => {
    names.add('submit-race');
    const held = heldEncoder();
    const first = await openMemory('submit-race', { encoders: { textEncoder: held.textEncoder } });
    opened.push(first);
    const second = await open('submit-race');
    const submit = { id: 'draft-1', user: { text: 'The plumber comes on Tuesday' } };
    const repeated = first.add(submit);
    await held.called;
    await second.memory.add(submit);
    held.release();
    await expect(repeated).rejects.toMatchObject({ code: 'DUPLICATE_ROUND', message: expect.stringMatching(/stored in another tab meanwhile/) });
    await expect.poll(() => first.size).toBe(1);

    const strictHeld = heldEncoder();
    const strict = await openMemory('submit-race', { encoders: { textEncoder: strictHeld.textEncoder }, concurrentAdds: 'refuse' });
    opened.push(strict);
    const refused = strict.add({ user: { text: 'Another note' } });
    await strictHeld.called;
    await second.memory.add({ user: { text: 'Meanwhile in the other tab' } });
    strictHeld.release();
    await expect(refused).rejects.toMatchObject({ code: 'MEMORY_LOCKED' });
    await expect(openMemory('x', { encoders: { textEncoder: createHashTextEncoder() }, concurrentAdds: 'always' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('export and importMemory', () => {
  it('export then import gives the same memory under a new name, with nothing re-encoded', async () => {
    const source = await open('source');
    await source.memory.add(ROUNDS);
    const file = await source.memory.export();
    names.add('copy');
    await importMemory('copy', new File([file], 'source.vmem'));
    const copy = await open('copy');
    expect((await copy.memory.rounds())).toEqual((await source.memory.rounds()));
    expect(await copy.memory.retrieve('where is the car?')).toEqual(await source.memory.retrieve('where is the car?'));
    expect(copy.textEncoder.encoded).toEqual(['where is the car?', 'the car']);
  });

  it('refuses a name that exists with MEMORY_EXISTS, and of two imports racing for one name exactly one wins', async () => {
    const source = await open('taken');
    await source.memory.add(ROUNDS);
    const file = await source.memory.export();
    await expect(importMemory('taken', file)).rejects.toMatchObject({ code: 'MEMORY_EXISTS', message: expect.stringMatching(/"taken" already exists/) });
    expect(source.memory.size).toBe(2);

    names.add('raced');
    const outcomes = await Promise.allSettled([importMemory('raced', file), importMemory('raced', file)]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: { code: 'MEMORY_EXISTS' } });
    expect((await open('raced')).memory.size).toBe(2);
  });

  it('refuses what is not a vmem export with INVALID_INPUT and leaves no memory behind', async () => {
    await expect(importMemory('junk', new Blob(['{"rounds": []}']))).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/not a vmem memory export/) });
    await expect(importMemory('junk', 'not a file' as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await listMemories()).not.toContain('junk');
  });
});
