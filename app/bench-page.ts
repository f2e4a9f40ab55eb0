/**
 * The browser benchmark's in-page harness (`bench.html`): index-scale retrieval on synthetic rounds,
 * persisted memories (their IndexedDB size and open time, and where the open time goes), and plain
 * Orama hybrid search on the same data as the reference.
 * `scripts/bench-browser.ts` drives it through `window.__bench`.
 */
import { create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import { createInMemoryStorage, createMemory, type Memory, type VmemProgress } from 'vmem';
import { deleteMemory, listMemories, openMemory } from 'vmem/browser';
import { randomSentence, seededRandom, syntheticImageEncoder, syntheticRounds, syntheticTextEncoder } from '../src/testing/synthetic-rounds.js';

/** Latency summary of a series of calls. */
export interface Latencies {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly mean: number;
}

const BATCH = 2_000;
/** Retrievals timed on each reopened memory after its first (`persistedOpen`). */
const WARM_RETRIEVALS = 10;
/** The first adds after opening, whose time an add run reports apart (`addRun`). */
const FIRST_ADDS = 5;
const textEncoder = syntheticTextEncoder(512);
const imageEncoder = syntheticImageEncoder(1280);
let held: { memory?: Memory; orama?: AnyOrama } = {};

function summarize(times: number[]): Latencies {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { count: times.length, p50: at(0.5), p95: at(0.95), mean: times.reduce((a, b) => a + b, 0) / times.length };
}

/** How `persistedOpen` locks its memory: a passphrase (Argon2id each open), or an AES-GCM key the page keeps (no KDF). */
type BenchLock = { readonly passphrase: string } | { readonly appKey: true };
let appKey: CryptoKey | undefined;

async function encryptionOf(lock: BenchLock | undefined) {
  if (!lock) return {};
  if ('passphrase' in lock) return { encryption: { passphrase: lock.passphrase } };
  appKey ??= await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  return { encryption: { key: appKey } };
}

function persistedName(rounds: number, lock?: BenchLock): string {
  return `bench-persisted-${rounds}${!lock ? '' : 'passphrase' in lock ? '-sealed' : '-keyed'}`;
}

function queries(count: number): string[] {
  const random = seededRandom(99);
  return Array.from({ length: count }, () => randomSentence(random, 6));
}

async function fill(memory: Memory, rounds: number): Promise<number> {
  const started = performance.now();
  for (let start = 0; start < rounds; start += BATCH) await memory.add(syntheticRounds(Math.min(BATCH, rounds - start), start));
  return performance.now() - started;
}

/** Adds `count` new synthetic text rounds after the memory's last, one `add` each; each add's time in ms. */
async function addTimed(memory: Memory, count: number): Promise<number[]> {
  const fresh = syntheticRounds(count, memory.size, 31).map((round) => ({ ...round, id: `added-${round.id}`, user: { text: round.user.text } }));
  // Each add timed: a cost paid once after opening shows in the first adds, a steady one in the median.
  const each: number[] = [];
  for (const round of fresh) {
    const before = performance.now();
    await memory.add(round);
    each.push(performance.now() - before);
  }
  return each;
}

/** An add run's rate from its adds' times. */
function addRun(each: readonly number[]) {
  const ms = each.reduce((sum, time) => sum + time, 0);
  const firstMs = each.slice(0, FIRST_ADDS).reduce((sum, time) => sum + time, 0);
  return { count: each.length, ms, roundsPerSecond: (each.length / ms) * 1000, firstMs, each: summarize([...each]) };
}

const bench = {
  /** Builds an in-memory vmem memory of `rounds` synthetic rounds and times `queryCount` text retrievals. */
  async vmemScale(rounds: number, queryCount: number) {
    held = {};
    const memory = await createMemory({ textEncoder, imageEncoder, retrieval: { llmAnchors: false } });
    const buildMs = await fill(memory, rounds);
    const times: number[] = [];
    for (const text of queries(queryCount)) {
      const started = performance.now();
      await memory.retrieve(text);
      times.push(performance.now() - started);
    }
    // Where the time goes: each text signal alone, on the same queries.
    const signal = async (name: 'bm25' | 'dense') => {
      const spent: number[] = [];
      for (const text of queries(23)) {
        const started = performance.now();
        await memory.search({ signal: name, text });
        spent.push(performance.now() - started);
      }
      return summarize(spent.slice(3));
    };
    const bm25 = await signal('bm25');
    const dense = await signal('dense');
    held.memory = memory;
    return { rounds, buildMs, latency: summarize(times.slice(3)), bm25, dense };
  },

  /** Plain Orama hybrid search over the same units (one doc per text unit, same vectors). */
  async oramaScale(rounds: number, queryCount: number) {
    held = {};
    const db = create({ schema: { text: 'string', embedding: 'vector[512]' } as const });
    const started = performance.now();
    for (let start = 0; start < rounds; start += BATCH) {
      const batch = syntheticRounds(Math.min(BATCH, rounds - start), start);
      const texts = batch.flatMap((round) => [round.user.text ?? '', round.assistant?.text ?? '']);
      const vectors = await textEncoder.embed(texts);
      // Orama stores vectors as plain arrays only.
      await insertMultiple(db, texts.map((text, i) => ({ text, embedding: Array.from(vectors[i]!) })), 1_000);
    }
    const buildMs = performance.now() - started;
    const times: number[] = [];
    for (const text of queries(queryCount)) {
      const t0 = performance.now();
      const [vector] = await textEncoder.embed([text]);
      await search(db, { mode: 'hybrid', term: text, vector: { value: vector!, property: 'embedding' }, similarity: 0, limit: 20 });
      times.push(performance.now() - t0);
    }
    held.orama = db;
    return { rounds, buildMs, latency: summarize(times.slice(3)) };
  },

  /** Drops (and closes) what the last run held, so the next heap reading starts clean. */
  async release() {
    const { memory } = held;
    held = {};
    await memory?.close();
  },

  /**
   * Bytes this origin keeps in IndexedDB as the browser counts them: Chromium's
   * `navigator.storage.estimate().usageDetails.indexedDB` (its LevelDB and blob files), or the
   * origin's whole usage where a browser gives no details.
   */
  async indexedDbBytes() {
    const estimate = (await navigator.storage.estimate()) as StorageEstimate & { usageDetails?: { indexedDB?: number } };
    return { bytes: estimate.usageDetails?.indexedDB ?? estimate.usage ?? 0, detailed: estimate.usageDetails?.indexedDB !== undefined };
  },

  /**
   * A fresh device (run it in a fresh profile: the sync replica outlives the memory's name): opens
   * an empty persisted memory with the synthetic encoders and syncs it once from `url`.
   */
  async syncFresh(url: string, passphrase?: string) {
    const name = 'bench-sync-fresh';
    held = {};
    const memory = await openMemory(name, { encoders: { textEncoder, imageEncoder } });
    const started = performance.now();
    await memory.sync({ url, ...(passphrase ? { passphrase } : {}) }).done;
    const syncMs = performance.now() - started;
    const photos = (await memory.rounds()).filter((round) => round.user.images.length > 0).length;
    const { pulled, reencoded } = memory.syncState();
    const size = memory.size;
    await memory.close();
    return { syncMs, size, photos, pulled, reencoded };
  },

  /** Writes a fresh persisted memory of `rounds` synthetic rounds and holds it open (for a heap reading). */
  async writePersisted(rounds: number) {
    const name = persistedName(rounds);
    if ((await listMemories()).includes(name)) await deleteMemory(name);
    held = {};
    const started = performance.now();
    const memory = await openMemory(name, { encoders: { textEncoder, imageEncoder } });
    await fill(memory, rounds);
    held.memory = memory;
    return { rounds, writeMs: performance.now() - started };
  },

  /**
   * Opening a memory of `rounds` rounds without IndexedDB: `createMemory` over an in-memory storage
   * holding the same rounds (reading its segments and facts, nothing tokenized or encoded). Opening
   * from IndexedDB minus this is what reading IndexedDB costs.
   */
  async openBreakdown(rounds: number, times: number) {
    held = {};
    const storage = createInMemoryStorage();
    const filled = await createMemory({ textEncoder, imageEncoder, storage });
    await fill(filled, rounds);
    await filled.close();
    const spent: number[] = [];
    for (let i = 0; i < times; i++) {
      const started = performance.now();
      const memory = await createMemory({ textEncoder, imageEncoder, storage });
      spent.push(performance.now() - started);
      if (memory.size !== rounds) throw new Error(`opened ${memory.size} rounds, expected ${rounds}`);
      await memory.close();
    }
    return { rounds, inMemory: summarize(spent) };
  },

  /**
   * Writes a persisted memory of `rounds` rounds (unless there is one), closes it, and times
   * reopening it `times` times: until `openMemory` returns, and until the first retrieval after it
   * is done (what a user waits for; it includes any index work left to the background), then ten
   * retrievals more (`warmRetrieval`). The last
   * reopened memory stays open (held) for a heap reading; `release` closes it.
   */
  async persistedOpen(rounds: number, times: number, lock?: BenchLock) {
    const name = persistedName(rounds, lock);
    const encoders = { textEncoder, imageEncoder };
    const encryption = await encryptionOf(lock);
    let writeMs: number | undefined;
    if (!(await listMemories()).includes(name)) {
      const started = performance.now();
      const memory = await openMemory(name, { encoders, ...encryption });
      await fill(memory, rounds);
      await memory.close();
      writeMs = performance.now() - started;
    }
    const question = queries(1)[0]!;
    const opens: number[] = [];
    /** The unlock task's time within each open (Argon2id and unwrapping the data key; 0 unencrypted), from its progress events. */
    const unlocks: number[] = [];
    const firstRetrievals: number[] = [];
    const warmRetrievals: number[] = [];
    let longestTask = 0;
    let firstTop: string | undefined;
    for (let i = 0; i < times; i++) {
      // The page's main-thread tasks over 50 ms (the Long Tasks API reports no shorter ones) from open to first retrieval.
      const tasks = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) longestTask = Math.max(longestTask, entry.duration);
      });
      tasks.observe({ type: 'longtask' });
      let unlockStarted: number | undefined;
      let unlocked = 0;
      const onProgress = (event: VmemProgress) => {
        if (event.task !== 'unlock') return;
        if (event.status === 'initiate') unlockStarted = performance.now();
        else if (event.status === 'done' && unlockStarted !== undefined) unlocked = performance.now() - unlockStarted;
      };
      const started = performance.now();
      const memory = await openMemory(name, { encoders, retrieval: { llmAnchors: false }, onProgress, ...encryption });
      opens.push(performance.now() - started);
      unlocks.push(unlocked);
      const result = await memory.retrieve(question);
      firstRetrievals.push(performance.now() - started);
      // Long tasks are reported after they end: one more task lets the last of them in.
      await new Promise((resolve) => setTimeout(resolve, 0));
      for (const entry of tasks.takeRecords()) longestTask = Math.max(longestTask, entry.duration);
      tasks.disconnect();
      // Several: one retrieval of a few ms is too short a sample to compare two memories by.
      for (let warm = 0; warm < WARM_RETRIEVALS; warm++) {
        const warmStarted = performance.now();
        await memory.retrieve(question);
        warmRetrievals.push(performance.now() - warmStarted);
      }
      if (memory.size !== rounds) throw new Error(`reopened ${memory.size} rounds, expected ${rounds}`);
      const top = JSON.stringify(result.blocks.flatMap((block) => block.rounds.map((round) => round.id)));
      if (firstTop !== undefined && top !== firstTop) throw new Error(`retrieval after reopening changed: ${top} vs ${firstTop}`);
      firstTop = top;
      if (i < times - 1) await memory.close();
      else held = { memory };
    }
    return {
      rounds,
      writeMs,
      open: summarize(opens),
      unlock: summarize(unlocks),
      openToFirstRetrieval: summarize(firstRetrievals),
      warmRetrieval: summarize(warmRetrievals),
      /** ms; 0 when no task reached 50 ms. */
      longestTask,
    };
  },

  /**
   * Adds `count` synthetic text rounds, one `add` each (as a chat does), after the last round of the
   * memory held, and returns the rate. The rounds are new (ids and texts continue the history).
   */
  async addToHeld(count: number) {
    const memory = held.memory;
    if (!memory) throw new Error('no memory is held');
    return addRun(await addTimed(memory, count));
  },

  /**
   * The add rate of the memory held against that of a persisted `referenceRounds`-round memory opened
   * beside it in this page: `count` adds to each, in blocks of `block` taken in turn (reference,
   * held, held, reference, …), so that the machine's load, which moves either rate by a tenth or
   * more within minutes here, weighs on both alike.
   */
  async addPaired(referenceRounds: number, count: number, block: number) {
    const memory = held.memory;
    if (!memory) throw new Error('no memory is held');
    const name = persistedName(referenceRounds);
    const encoders = { textEncoder, imageEncoder };
    if (!(await listMemories()).includes(name)) {
      const written = await openMemory(name, { encoders });
      await fill(written, referenceRounds);
      await written.close();
    }
    const reference = await openMemory(name, { encoders, retrieval: { llmAnchors: false } });
    try {
      // The held memory has answered a retrieval since its open (`persistedOpen`): so does this one.
      await reference.retrieve(queries(1)[0]!);
      const times = { held: [] as number[], reference: [] as number[] };
      for (let at = 0; at * block < count; at++) {
        const turn = at % 2 === 0 ? (['reference', 'held'] as const) : (['held', 'reference'] as const);
        for (const which of turn) times[which].push(...(await addTimed(which === 'held' ? memory : reference, Math.min(block, count - at * block))));
      }
      return { held: addRun(times.held), reference: addRun(times.reference) };
    } finally {
      await reference.close();
      await deleteMemory(name);
    }
  },

  /**
   * How the int8 dense search ranks against exact float32 scores on the memory held (built from
   * `syntheticRounds(rounds)`): for each query, the first `k` rounds by their best text unit, both
   * ways; the mean share of the exact top `k` the quantized search also returns.
   */
  async denseOverlap(rounds: number, queryCount: number, k: number) {
    const memory = held.memory;
    if (!memory) throw new Error('no memory is held');
    // The rounds exactly as `fill` added them (batch by batch: each batch is seeded by its start).
    const source = Array.from({ length: Math.ceil(rounds / BATCH) }, (_, batch) => syntheticRounds(Math.min(BATCH, rounds - batch * BATCH), batch * BATCH)).flat();
    // The text lane's units: each turn's text (captions folded in) and each caption.
    const texts: { roundId: string; text: string }[] = source.flatMap((round) => {
      const caption = round.user.images?.[0]?.caption;
      return [
        { roundId: round.id!, text: caption ? `${round.user.text} [Image: ${caption}]` : round.user.text! },
        ...(caption ? [{ roundId: round.id!, text: caption }] : []),
        { roundId: round.id!, text: round.assistant!.text! },
      ];
    });
    const vectors = await textEncoder.embed(texts.map((unit) => unit.text));
    const dimension = vectors[0]!.length;
    const matrix = new Float32Array(vectors.length * dimension);
    vectors.forEach((vector, row) => matrix.set(vector, row * dimension));
    let overlap = 0;
    const questions = queries(queryCount);
    for (const question of questions) {
      const [query] = await textEncoder.embed([question]);
      const best = new Map<string, number>();
      for (let row = 0; row < texts.length; row++) {
        let dot = 0;
        for (let i = 0, at = row * dimension; i < dimension; i++, at++) dot += matrix[at]! * query![i]!;
        const roundId = texts[row]!.roundId;
        if (dot > (best.get(roundId) ?? -Infinity)) best.set(roundId, dot);
      }
      const exact = new Set([...best].sort((a, b) => b[1] - a[1]).slice(0, k).map(([roundId]) => roundId));
      const hits = await memory.search({ signal: 'dense', text: question, limit: k * 4 });
      const quantized = [...new Set(hits.map((hit) => hit.roundId))].slice(0, k);
      overlap += quantized.filter((roundId) => exact.has(roundId)).length / k;
    }
    return { queries: questions.length, k, overlap: overlap / questions.length };
  },

  /**
   * IndexedDB against the origin-private file system, for the access pattern of index segments:
   * `count` values of `bytes` each written, then read back (a fresh read each time), timed. Returns
   * the median of `times` reads of all values, per store.
   */
  async storageRead(count: number, bytes: number, times: number) {
    const payload = new Uint8Array(bytes);
    for (let i = 0; i < bytes; i += 4096) payload[i] = i & 0xff;
    const database = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(`bench-read-${count}x${bytes}`, 1);
      request.onupgradeneeded = () => request.result.createObjectStore('blobs');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const done = (tx: IDBTransaction) => new Promise<void>((resolve, reject) => ((tx.oncomplete = () => resolve()), (tx.onerror = () => reject(tx.error))));
    const write = database.transaction('blobs', 'readwrite');
    for (let i = 0; i < count; i++) {
      write.objectStore('blobs').put(new Blob([payload]), i);
      write.objectStore('blobs').put(payload.buffer.slice(0), `buffer-${i}`);
    }
    await done(write);
    const root = await navigator.storage.getDirectory();
    const folder = await root.getDirectoryHandle(`bench-read-${count}x${bytes}`, { create: true });
    for (let i = 0; i < count; i++) {
      const writable = await (await folder.getFileHandle(`v${i}`, { create: true })).createWritable();
      await writable.write(payload);
      await writable.close();
    }
    const readIdb = async () => {
      const tx = database.transaction('blobs', 'readonly');
      const blobs = await Promise.all(
        Array.from({ length: count }, (_, i) => new Promise<Blob>((resolve, reject) => {
          const request = tx.objectStore('blobs').get(i);
          request.onsuccess = () => resolve(request.result as Blob);
          request.onerror = () => reject(request.error);
        })),
      );
      return Promise.all(blobs.map((blob) => blob.arrayBuffer()));
    };
    const readBuffers = async () => {
      const tx = database.transaction('blobs', 'readonly');
      return Promise.all(
        Array.from({ length: count }, (_, i) => new Promise<ArrayBuffer>((resolve, reject) => {
          const request = tx.objectStore('blobs').get(`buffer-${i}`);
          request.onsuccess = () => resolve(request.result as ArrayBuffer);
          request.onerror = () => reject(request.error);
        })),
      );
    };
    const readOpfs = async () => Promise.all(Array.from({ length: count }, async (_, i) => (await (await folder.getFileHandle(`v${i}`)).getFile()).arrayBuffer()));
    const time = async (read: () => Promise<ArrayBuffer[]>) => {
      const spent: number[] = [];
      for (let i = 0; i < times; i++) {
        const started = performance.now();
        const buffers = await read();
        spent.push(performance.now() - started);
        if (buffers.reduce((sum, buffer) => sum + buffer.byteLength, 0) !== count * bytes) throw new Error('short read');
      }
      return summarize(spent);
    };
    const idb = await time(readIdb);
    const idbBuffers = await time(readBuffers);
    const opfs = await time(readOpfs);
    database.close();
    await new Promise((resolve) => ((indexedDB.deleteDatabase(`bench-read-${count}x${bytes}`).onsuccess = resolve)));
    await root.removeEntry(`bench-read-${count}x${bytes}`, { recursive: true });
    return { count, bytes, idb, idbBuffers, opfs };
  },

  /**
   * For e2e/encryption.spec.ts: writes the memory `name` afresh, one round per marker (its id,
   * session, turns and, on the first, a photo's caption carry the marker), encrypted under
   * `passphrase` when given, and closes it. Returns its export, and the vector its encoder gave the
   * second round's user text.
   */
  async writeMarked(name: string, markers: readonly string[], photo: readonly number[], passphrase?: string) {
    if ((await listMemories()).includes(name)) await deleteMemory(name);
    const memory = await openMemory(name, { encoders: { textEncoder, imageEncoder }, ...(passphrase ? { encryption: { passphrase } } : {}) });
    await memory.add(
      markers.map((marker, index) => ({
        id: `${marker}-id`,
        sessionId: `${marker}-session`,
        user: { text: `I said ${marker} today`, ...(index === 0 ? { images: [{ bytes: new Uint8Array(photo), mimeType: 'image/jpeg', caption: `${marker} caption` }] } : {}) },
        assistant: { text: `Noted ${marker}` },
      })),
    );
    const exported = new Uint8Array(await (await memory.export()).arrayBuffer());
    await memory.close();
    const [vector] = await textEncoder.embed([`I said ${markers[1]} today`]);
    return { exported: [...exported], vector: [...vector!] };
  },

  /** Opens the memory `name` (encrypted under `passphrase` when given) and reads rounds by id: each one's user text, or the error code it gave. */
  async readRounds(name: string, ids: readonly string[], passphrase?: string) {
    const memory = await openMemory(name, { encoders: { textEncoder, imageEncoder }, ...(passphrase ? { encryption: { passphrase } } : {}) });
    try {
      return await Promise.all(ids.map((id) => memory.get(id).then((round) => round?.user.text ?? 'missing', (error: { code?: string }) => `error ${error.code ?? String(error)}`)));
    } finally {
      await memory.close();
    }
  },

  /** Opening the memory `name`: `ok`, or the error code it gave (`WRONG_PASSPHRASE`, `PASSPHRASE_REQUIRED`…). */
  async tryOpen(name: string, passphrase?: string) {
    try {
      const memory = await openMemory(name, { encoders: { textEncoder, imageEncoder }, ...(passphrase ? { encryption: { passphrase } } : {}) });
      await memory.close();
      return 'ok';
    } catch (error) {
      return (error as { code?: string }).code ?? String(error);
    }
  },

  /**
   * Adds rounds `r<size>`, `r<size+1>`, … one `add` each to the persisted memory `name` until there
   * are `total`, counting them in `window.__added` as they commit (each add writes a segment; every
   * eighth starts a background merge). For the crash test, which kills the browser meanwhile.
   */
  async addOneByOne(name: string, total: number) {
    const memory = await openMemory(name, { encoders: { textEncoder, imageEncoder } });
    held = { memory };
    for (let index = memory.size; index < total; index++) {
      await memory.add({ id: `r${index}`, timestamp: 1_700_000_000_000 + index * 60_000, user: { text: `round ${index} note ${randomSentence(seededRandom(index), 8)}` }, assistant: { text: `reply ${index}` } });
      (window as unknown as { __added: number }).__added = index + 1;
    }
  },

  /**
   * What the persisted memory `name` holds, as `addOneByOne` wrote it: every stored round whole and
   * in order (`r0` … `r<size-1>`, their texts as added), indexed exactly once (the dense search over
   * everything returns each round's two text units once), and each findable by its own words.
   */
  async checkStored(name: string) {
    const memory = await openMemory(name, { encoders: { textEncoder, imageEncoder }, retrieval: { llmAnchors: false } });
    try {
      const rounds = await memory.rounds();
      const problems: string[] = [];
      rounds.forEach((round, index) => {
        if (round.id !== `r${index}`) problems.push(`round ${index} is ${round.id}`);
        if (round.user.text !== `round ${index} note ${randomSentence(seededRandom(index), 8)}` || round.assistant.text !== `reply ${index}`) problems.push(`${round.id} is not whole`);
      });
      const units = await memory.search({ signal: 'dense', text: 'anything', limit: 2 * rounds.length + 10 });
      if (units.length !== 2 * rounds.length || new Set(units.map((unit) => unit.unitId)).size !== units.length) problems.push(`the index holds ${units.length} units for ${rounds.length} rounds`);
      for (const index of [0, rounds.length >> 1, rounds.length - 1].filter((at) => at >= 0)) {
        const hits = await memory.search({ signal: 'bm25', text: `round ${index}`, limit: 200 });
        if (!hits.some((hit) => hit.roundId === `r${index}`)) problems.push(`r${index} is not found by its words`);
      }
      // And the memory takes the next round.
      await memory.add({ id: `r${rounds.length}`, user: { text: `round ${rounds.length} note ${randomSentence(seededRandom(rounds.length), 8)}` }, assistant: { text: `reply ${rounds.length}` } });
      return { size: rounds.length, problems };
    } finally {
      await memory.close();
    }
  },

  deleteMemory,
};

declare global {
  interface Window {
    __bench?: typeof bench;
  }
}
window.__bench = bench;
