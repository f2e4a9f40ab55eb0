/**
 * Encryption at rest as a layer over any `MemoryStorage` (the file store, IndexedDB, in-memory):
 * the store below is handed carrier records that hold nothing readable, and keeps them as it keeps
 * any others (its atomic writes, crash safety and cleanup are unchanged).
 *
 * - A round becomes a round named by the HMAC of its id, with seq kept (the order of writes shows
 *   anyway), no session, time, images or meta of its own but a random `meta.version`, new with each
 *   write (all an open reads of it when the facts cache has it: see facts-cache.ts); its body (the
 *   real round, sealed) rides in `assistant.text`, its facts (sealed) in `user.typed` (a store reads
 *   `user.text` for the round's facts: base64 there only costs it), and units not indexed yet in one
 *   carrier unit. Rounds sealed by vmem 9402260 or before keep their sealed facts in `meta.facts`.
 * - An image is stored under the HMAC of its id, its type and bytes sealed together.
 * - A segment is stored under the HMAC of its name, sealed; each entry of the commit names a stored
 *   segment (so the store can drop unnamed ones) and carries the real entry, sealed under that name,
 *   so a store can join another tab's commit and this one's new entries (`concurrentAdds: 'merge'`).
 * - The manifest keeps the key record (readable: it is what unlocks) and the real manifest, sealed.
 * Each record is sealed under its kind and stored id (see sealer.ts), so one moved onto another fails.
 */
import { errorCode, VmemError } from '../errors.js';
import type { ProgressCallback } from '../progress.js';
import type { StoredRound, StoredUnit } from '../types.js';
import { FactsCache, isCacheEntry, legacyVersionOf } from './facts-cache.js';
import { assertStorablePictures, SEALED_IMAGE_TYPE } from './picture-check.js';
import { fromBase64, toBase64 } from '../util/byte-text.js';
import { createDataKey, SealError, unwrapDataKey, wrapDataKey, type DataKey, type KeyRecord, type Sealer, type Unlock } from './sealer.js';
import { roundFacts, type CommittedSegment, type IndexChange, type IndexCommit, type Manifest, type MemoryStorage, type RoundFacts, type RoundRecord, type StorageState, type StoredImage } from './types.js';

/** What the store's manifest says of the encoders: the real ones are sealed. */
const HIDDEN_ENCODERS = { text: { id: 'sealed', dimension: 0 } } as const;

/** What an encrypted store adds to the store it seals. */
export interface EncryptedStorageControls {
  /**
   * Re-wraps the data key under `next` (a fresh salt): one small write of the key record, no
   * round, image or segment is encrypted again. The current passphrase must be given.
   * @throws VmemError `WRONG_PASSPHRASE` when `current` does not unlock the memory (nothing changes)
   */
  changePassphrase(current: string, next: string): Promise<void>;
}

/**
 * `inner` sealed under `unlock`: a new store gets a new data key (its key record is written at
 * once); an encrypted one is unlocked before anything is written, so a wrong passphrase changes nothing.
 * `onProgress` hears the unlock as the `unlock` task (Argon2id, for a passphrase).
 * @throws VmemError `WRONG_PASSPHRASE`; `INVALID_INPUT` when `inner` holds a memory that is not encrypted
 */
export async function sealStorage(inner: MemoryStorage, unlock: Unlock, onProgress?: ProgressCallback): Promise<MemoryStorage & EncryptedStorageControls> {
  const manifest = await inner.readManifest();
  if (manifest && !manifest.encryption) {
    throw new VmemError(
      'INVALID_INPUT',
      `${inner.label} holds a memory that is not encrypted; open it without a passphrase, or encrypt it first (encryptMemory in vmem/browser, encryptMemoryFolder in vmem/node).`,
    );
  }
  if (manifest?.encryption) return unlockStored(inner, { ...manifest, encryption: manifest.encryption }, unlock, onProgress);
  const { key, record } = await createDataKey(unlock);
  await inner.writeManifest(keyOnlyManifest(record));
  return new SealedStorage(inner, key, record);
}

/** An encrypted store unlocked; an encryption in place that was cut short is finished before anything reads it. */
async function unlockStored(inner: MemoryStorage, manifest: Manifest & { encryption: KeyRecord }, unlock: Unlock, onProgress: ProgressCallback | undefined): Promise<SealedStorage> {
  const sealed = new SealedStorage(inner, await unwrapReported(manifest.encryption, unlock, inner.label, onProgress), manifest.encryption);
  if (manifest.encrypting) await sealed.finishEncrypting(onProgress);
  return sealed;
}

/** The data key unwrapped as the `unlock` task, so that an app can say what the open waits for (and time it). */
async function unwrapReported(record: KeyRecord, unlock: Unlock, label: string, onProgress: ProgressCallback | undefined): Promise<DataKey> {
  onProgress?.({ task: 'unlock', status: 'initiate' });
  let key: DataKey;
  try {
    key = await unwrapDataKey(record, unlock, label);
  } catch (error) {
    const code = errorCode(error);
    onProgress?.({ task: 'unlock', status: 'failed', ...(code ? { code } : {}), message: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  onProgress?.({ task: 'unlock', status: 'done' });
  return key;
}

/**
 * Encrypts the memory in `inner` where it lies, a batch of rounds at a time, each batch stored
 * sealed before its plain rounds are removed, so a process killed at any point leaves every round
 * whole (plain or sealed, never both lost); calling this again, or opening the memory with its
 * passphrase, resumes. The key record is written first: from then on the memory opens only with it.
 * A memory already encrypted is only unlocked.
 * @throws VmemError `INVALID_INPUT` for an empty store; `WRONG_PASSPHRASE` when resuming with another passphrase
 */
export async function encryptStorageInPlace(inner: MemoryStorage, unlock: Unlock, onProgress?: ProgressCallback): Promise<MemoryStorage & EncryptedStorageControls> {
  const manifest = await inner.readManifest();
  if (!manifest) throw new VmemError('INVALID_INPUT', `${inner.label} holds no memory to encrypt; open it with \`encryption\` to start it encrypted.`);
  if (manifest.encryption) return unlockStored(inner, { ...manifest, encryption: manifest.encryption }, unlock, onProgress);
  const { key, record } = await createDataKey(unlock);
  const sealedManifest = await key.sealer.sealText('manifest', '', JSON.stringify(manifest));
  await inner.writeManifest({ ...keyOnlyManifest(record), schemaVersion: manifest.schemaVersion, sealed: sealedManifest, encrypting: true });
  const sealed = new SealedStorage(inner, key, record);
  await sealed.finishEncrypting(onProgress);
  return sealed;
}

/** Rounds re-stored per step of an encryption in place. */
const ENCRYPT_BATCH = 256;

/** A round as `SealedStorage` hands it to its store (anything else is a round not encrypted yet). */
function isCarrier(facts: RoundFacts): boolean {
  return facts.sessionId === '' && facts.timestamp === 0 && versionOf(facts) !== undefined && /^[0-9a-f]{64}$/.test(facts.id);
}

/** What tells one write of a stored round from another (see facts-cache.ts); undefined for a record that is no carrier. */
function versionOf(carrier: RoundFacts): string | undefined {
  const meta = carrier.meta;
  if (typeof meta?.version === 'string') return meta.version;
  return typeof meta?.facts === 'string' ? legacyVersionOf(meta.facts) : undefined;
}

/** Random bytes in a carrier's version: enough that two writes of a round never share one. */
const VERSION_BYTES = 9;

/**
 * `sealStorage`, keeping the members `keep` of the store below (its folder, its name…) readable
 * through the sealed one. Closes `inner` when it cannot be unlocked.
 */
export async function sealStorageKeeping<S extends MemoryStorage, K extends Exclude<keyof S, keyof MemoryStorage>>(
  inner: S,
  unlock: Unlock,
  keep: readonly K[],
  onProgress?: ProgressCallback,
): Promise<MemoryStorage & EncryptedStorageControls & Pick<S, K>> {
  let sealed: MemoryStorage & EncryptedStorageControls;
  try {
    sealed = await sealStorage(inner, unlock, onProgress);
  } catch (error) {
    await inner.close();
    throw error;
  }
  for (const name of keep) {
    Object.defineProperty(sealed, name, {
      get: () => {
        const value = inner[name];
        return typeof value === 'function' ? value.bind(inner) : value;
      },
    });
  }
  return sealed as MemoryStorage & EncryptedStorageControls & Pick<S, K>;
}

/** The data key's sealer of a store made by `sealStorage` (for encrypted exports); undefined for any other store. */
export function sealedKeyOf(storage: MemoryStorage): { readonly key: DataKey; readonly record: KeyRecord } | undefined {
  return storage instanceof SealedStorage ? storage.keys() : undefined;
}

function keyOnlyManifest(record: KeyRecord): Manifest {
  return { schemaVersion: 0, encoders: HIDDEN_ENCODERS, createdAt: 0, encryption: record };
}

class SealedStorage implements MemoryStorage, EncryptedStorageControls {
  readonly label: string;
  private readonly inner: MemoryStorage;
  private readonly key: DataKey;
  private record: KeyRecord;
  private readonly sealer: Sealer;
  /** Stored round id → real id, learnt as ids are asked for and written (and at open for rounds not indexed yet). */
  private readonly roundIdOf = new Map<string, string>();
  private readonly factsCache = new FactsCache();
  /** The commit as the store holds it (stored segment names, the real commit sealed), after the last write. */
  private storedCommit: IndexCommit | undefined;
  /** The sealed text of each entry of the last commit written, by the entry's JSON. */
  private sealedEntries = new Map<string, string>();
  /** Segments `open` started reading and decrypting, by real id, until the memory asks for them. */
  private readonly prefetched = new Map<string, Promise<Uint8Array | undefined>>();

  constructor(inner: MemoryStorage, key: DataKey, record: KeyRecord) {
    this.inner = inner;
    this.label = inner.label;
    this.key = key;
    this.record = record;
    this.sealer = key.sealer;
  }

  keys() {
    return { key: this.key, record: this.record };
  }

  /** Seals what an encryption in place left plain: first the index (one step), then the rounds batch by batch, then clears the flag. */
  async finishEncrypting(onProgress: ProgressCallback | undefined): Promise<void> {
    const state = await this.inner.open();
    let commit = state.index;
    if (commit && commit.sealed === undefined && !commit.segments.some((segment) => segment.sealed !== undefined)) {
      const ids = commit.segments.map((segment) => segment.id);
      const bytes = await this.inner.readSegments(ids);
      const add = ids.flatMap((id, at) => (bytes[at] ? [{ id, bytes: bytes[at]! }] : []));
      const change = await this.sealChange({ add, commit });
      await this.inner.writeIndex(change);
      commit = change.commit;
    }
    const plain = state.rounds.filter((facts) => !isCarrier(facts));
    const unindexed = new Set(state.unindexed);
    const total = plain.length;
    onProgress?.({ task: 'encrypt', status: 'initiate' });
    for (let start = 0; start < plain.length; start += ENCRYPT_BATCH) {
      const batch = plain.slice(start, start + ENCRYPT_BATCH);
      const ids = batch.map((facts) => facts.id);
      const rounds = await this.inner.getRounds(ids);
      const records: RoundRecord[] = [];
      for (const [at, round] of rounds.entries()) {
        if (!round) continue;
        const images: StoredImage[] = [];
        for (const image of batch[at]!.images) {
          const stored = image.hasBytes ? await this.inner.getImage(image.id) : undefined;
          if (stored) images.push(stored);
        }
        records.push({ round, units: unindexed.has(round.id) ? await this.inner.readUnits([round.id]) : [], images });
      }
      const carriers = await Promise.all(records.map((record) => this.carrierRecord(record)));
      const change = commit ? { add: [], commit } : undefined;
      // Rounds in the index are stored with the (unchanged) commit, so they stay indexed; the others keep their units.
      const indexedCarriers = carriers.filter((_, at) => !unindexed.has(records[at]!.round.id));
      const unindexedCarriers = carriers.filter((_, at) => unindexed.has(records[at]!.round.id));
      if (indexedCarriers.length > 0) await this.inner.putRounds(indexedCarriers, change);
      if (unindexedCarriers.length > 0) await this.inner.putRounds(unindexedCarriers);
      await this.inner.deleteRounds(ids, change);
      onProgress?.({ task: 'encrypt', status: 'progress', loaded: Math.min(total, start + batch.length), total, unit: 'rounds' });
    }
    const stored = await this.inner.readManifest();
    if (stored) {
      const { encrypting: _done, ...rest } = stored;
      await this.inner.writeManifest({ ...rest, encryption: this.record });
    }
    onProgress?.({ task: 'encrypt', status: 'done' });
  }

  async changePassphrase(current: string, next: string): Promise<void> {
    await unwrapDataKey(this.record, { passphrase: current }, this.label);
    const record = await wrapDataKey(this.key, { passphrase: next });
    const stored = await this.inner.readManifest();
    await this.inner.writeManifest({ ...(stored ?? keyOnlyManifest(record)), encryption: record });
    this.record = record;
  }

  async readManifest(): Promise<Manifest | undefined> {
    const stored = await this.inner.readManifest();
    if (!stored?.sealed) return undefined;
    return JSON.parse(await this.openText('manifest', '', stored.sealed, () => 'the manifest')) as Manifest;
  }

  async writeManifest(manifest: Manifest): Promise<void> {
    const sealed = await this.sealer.sealText('manifest', '', JSON.stringify(manifest));
    await this.inner.writeManifest({ ...keyOnlyManifest(this.record), schemaVersion: manifest.schemaVersion, sealed });
  }

  async open(): Promise<StorageState> {
    const state = await this.inner.open();
    this.storedCommit = state.index;
    // Each stored segment the commit names (the facts cache among them) is read on its own and
    // decrypted (in the cipher worker, in a page) as soon as its bytes are in: the worker works on
    // one while the store still reads the next, and the page meanwhile opens the facts.
    const reads = new Map<string, Promise<Uint8Array | undefined>>();
    for (const { id } of state.index?.segments ?? []) {
      const read = this.inner.readSegments([id]).then(([bytes]) => bytes);
      // Its failure reaches whoever reads the segment; none is left unhandled meanwhile.
      read.catch(() => undefined);
      reads.set(id, read);
    }
    const storedBytes = async (storedId: string) => reads.get(storedId);
    const cacheLoaded = this.factsCache.load(this.sealer, state.index, storedBytes);
    cacheLoaded.catch(() => undefined);
    const index = state.index ? await this.openCommit(state.index) : undefined;
    this.prefetched.clear();
    for (const segment of index?.segments ?? []) {
      const opened = this.sealer.storedId('segment', segment.id).then(async (storedId) => {
        const bytes = await storedBytes(storedId);
        // The store's bytes are ours to give away (`MemoryStorage.readSegments`).
        return bytes && this.sealer.open('segment', storedId, bytes, true).catch(() => undefined);
      });
      // Its failure reaches the memory when it reads the segment; none is left unhandled meanwhile.
      opened.catch(() => undefined);
      this.prefetched.set(segment.id, opened);
    }
    const versions = state.rounds.map(versionOf);
    const damaged = versions.findIndex((version) => version === undefined);
    if (damaged >= 0) throw this.damaged(`the round stored as ${state.rounds[damaged]!.id} (position ${state.rounds[damaged]!.seq}) has no version`);
    await cacheLoaded;
    const rounds = await this.factsCache.match(state.rounds.map((carrier, at) => ({ storedId: carrier.id, version: versions[at]!, seq: carrier.seq })));
    const uncached: number[] = [];
    rounds.forEach((facts, at) => {
      if (!facts) uncached.push(at);
    });
    if (uncached.length > 0) await this.openFacts(state.rounds, versions as string[], uncached, rounds);
    // Real ids are learnt when asked for (`storedRoundId`); those of rounds not indexed yet are needed now.
    const unindexed = new Set(state.unindexed);
    const realIdOf = new Map(state.rounds.flatMap((carrier, at) => (unindexed.has(carrier.id) ? [[carrier.id, rounds[at]!.id] as const] : [])));
    for (const [storedId, id] of realIdOf) this.roundIdOf.set(storedId, id);
    return { rounds: rounds as RoundFacts[], index, unindexed: state.unindexed.map((id) => realIdOf.get(id)!) };
  }

  /**
   * The facts of the rounds at `positions`, which the cache lacks, each opened from its own sealed
   * record into `rounds`. A round sealed by vmem 9402260 or before holds them in its facts record;
   * any other in its body record, read for them.
   */
  private async openFacts(carriers: readonly RoundFacts[], versions: readonly string[], positions: readonly number[], rounds: (RoundFacts | undefined)[]): Promise<void> {
    const fromBody = positions.filter((at) => typeof carriers[at]!.meta?.version === 'string');
    const bodies = fromBody.length > 0 ? await this.inner.getRounds(fromBody.map((at) => carriers[at]!.id)) : [];
    const bodyOf = new Map(fromBody.map((at, found) => [at, bodies[found]]));
    await Promise.all(
      positions.map(async (at) => {
        const carrier = carriers[at]!;
        const what = () => `the facts of the round stored as ${carrier.id} (position ${carrier.seq})`;
        const sealed = bodyOf.has(at) ? bodyOf.get(at)?.user.typed : carrier.meta?.facts;
        if (typeof sealed !== 'string') throw this.damaged(`${what()} are missing`);
        const facts = JSON.parse(await this.openText('facts', carrier.id, sealed, what)) as RoundFacts;
        this.factsCache.remember(carrier.id, versions[at]!, facts);
        // The store may renumber rounds (a write merged after another tab's); its seq is the one that counts.
        rounds[at] = { ...facts, seq: carrier.seq };
      }),
    );
  }

  async readSegments(ids: readonly string[]): Promise<(Uint8Array | undefined)[]> {
    const early = ids.map((id) => this.prefetched.get(id));
    for (const id of ids) this.prefetched.delete(id);
    if (early.every((bytes) => bytes !== undefined)) return Promise.all(early);
    return this.readSealedSegments(ids);
  }

  private async readSealedSegments(ids: readonly string[]): Promise<(Uint8Array | undefined)[]> {
    const storedIds = await Promise.all(ids.map((id) => this.sealer.storedId('segment', id)));
    const sealed = await this.inner.readSegments(storedIds);
    // A segment that fails to authenticate is read as missing: the memory rebuilds it from the rounds.
    return Promise.all(sealed.map((bytes, at) => (bytes ? this.sealer.open('segment', storedIds[at]!, bytes, true).catch(() => undefined) : undefined)));
  }

  async readUnits(roundIds: readonly string[]): Promise<StoredUnit[]> {
    const carriers = await this.inner.readUnits(await Promise.all(roundIds.map((id) => this.storedRoundId(id))));
    const units = await Promise.all(
      carriers.map(async (carrier) => {
        const json = await this.openText('units', carrier.roundId, carrier.text ?? '', () => `the units of round "${this.roundIdOf.get(carrier.roundId) ?? carrier.roundId}"`);
        return (JSON.parse(json) as (Omit<StoredUnit, 'vector'> & { vector: string })[]).map((unit) => ({ ...unit, vector: new Float32Array(fromBase64(unit.vector).buffer) }));
      }),
    );
    return units.flat();
  }

  async getRounds(roundIds: readonly string[]): Promise<(StoredRound | undefined)[]> {
    const storedIds = await Promise.all(roundIds.map((id) => this.storedRoundId(id)));
    const carriers = await this.inner.getRounds(storedIds);
    return Promise.all(
      carriers.map(async (carrier, at) => {
        if (!carrier) return undefined;
        // Memories sealed by vmem before the body moved to `assistant.text` keep it in `user.text`.
        const body = carrier.assistant.text || carrier.user.text;
        const round = JSON.parse(await this.openText('round', carrier.id, body, () => `round "${roundIds[at]}"`)) as StoredRound;
        return { ...round, seq: carrier.seq };
      }),
    );
  }

  async putRounds(records: readonly RoundRecord[], index?: IndexChange): Promise<void> {
    // The pictures are checked here, while readable; the store below sees sealed bytes only.
    assertStorablePictures(records);
    const carriers = await Promise.all(records.map((record) => this.carrierRecord(record)));
    let change = index && (await this.sealChange(index));
    // A stale facts cache is written again with the rounds: a page that never calls close() would otherwise never write one.
    const cache = change && this.factsCache.stale ? await this.factsCache.fresh(this.sealer, change.commit) : undefined;
    if (change && cache) change = { add: [...change.add, cache.segment], commit: cache.commit };
    await this.inner.putRounds(carriers, change);
    cache?.adopt();
    if (change) this.storedCommit = change.commit;
  }

  async deleteRounds(roundIds: readonly string[], index?: IndexChange): Promise<void> {
    const storedIds = await Promise.all(roundIds.map((id) => this.storedRoundId(id)));
    const change = index && (await this.sealChange(index));
    await this.inner.deleteRounds(storedIds, change);
    for (const id of storedIds) this.factsCache.forget(id);
    if (change) this.storedCommit = change.commit;
  }

  async writeIndex(index: IndexChange, indexed: readonly string[] = []): Promise<void> {
    const change = await this.sealChange(index);
    await this.inner.writeIndex(change, await Promise.all(indexed.map((id) => this.storedRoundId(id))));
    this.storedCommit = change.commit;
  }

  async getImage(imageId: string): Promise<StoredImage | undefined> {
    const storedId = await this.sealer.storedId('image', imageId);
    const carrier = await this.inner.getImage(storedId);
    if (!carrier) return undefined;
    let plain: Uint8Array;
    try {
      plain = await this.sealer.open('image', storedId, carrier.bytes);
    } catch (error) {
      throw this.damaged(`image "${imageId}" fails to authenticate`, error);
    }
    const typeLength = plain[0]!;
    return { id: imageId, mimeType: new TextDecoder().decode(plain.subarray(1, 1 + typeLength)), bytes: plain.slice(1 + typeLength) };
  }

  async clear(): Promise<void> {
    await this.inner.clear();
    this.factsCache.clear();
    this.storedCommit = undefined;
    // The key record stays, so the memory stays encrypted under the same passphrase.
    await this.inner.writeManifest(keyOnlyManifest(this.record));
    this.roundIdOf.clear();
  }

  async close(): Promise<void> {
    try {
      // Written whenever anything changed, so that the next open finds every round in it, lined up.
      if (this.factsCache.changed && this.storedCommit) {
        const fresh = await this.factsCache.fresh(this.sealer, this.storedCommit);
        await this.inner.writeIndex({ add: [fresh.segment], commit: fresh.commit }).then(fresh.adopt, (error: unknown) => {
          // Another tab wrote meanwhile: its commit is newer, and it writes its own cache with its next add.
          if (errorCode(error) !== 'MEMORY_LOCKED') throw error;
        });
      }
    } finally {
      await this.inner.close();
    }
  }

  private async storedRoundId(id: string): Promise<string> {
    const stored = await this.sealer.storedId('round', id);
    this.roundIdOf.set(stored, id);
    return stored;
  }

  private async carrierRecord(record: RoundRecord): Promise<RoundRecord> {
    const { round } = record;
    const id = await this.storedRoundId(round.id);
    const facts = roundFacts(round);
    const version = toBase64(crypto.getRandomValues(new Uint8Array(VERSION_BYTES)));
    // Remembered before the store took it: an entry no stored round matches is never used.
    this.factsCache.remember(id, version, facts);
    const carrier: StoredRound = {
      id,
      seq: round.seq,
      sessionId: '',
      timestamp: 0,
      user: { text: '', typed: await this.sealer.sealText('facts', id, JSON.stringify(facts)), images: [] },
      assistant: { text: await this.sealer.sealText('round', id, JSON.stringify(round)), images: [] },
      meta: { version },
    };
    const units: StoredUnit[] = [];
    if (record.units.length > 0) {
      const json = JSON.stringify(record.units.map((unit) => ({ ...unit, vector: toBase64(new Uint8Array(unit.vector.buffer, unit.vector.byteOffset, unit.vector.byteLength)) })));
      units.push({ id, roundId: id, lane: 'text', kind: 'text', role: 'user', text: await this.sealer.sealText('units', id, json), vector: new Float32Array(0) });
    }
    const images = await Promise.all(
      record.images.map(async (image) => {
        const storedId = await this.sealer.storedId('image', image.id);
        const type = new TextEncoder().encode(image.mimeType);
        const plain = new Uint8Array(1 + type.length + image.bytes.byteLength);
        plain[0] = type.length;
        plain.set(type, 1);
        plain.set(image.bytes, 1 + type.length);
        return { id: storedId, mimeType: SEALED_IMAGE_TYPE, bytes: await this.sealer.seal('image', storedId, plain) };
      }),
    );
    return { round: carrier, units, images };
  }

  private async sealChange(change: IndexChange): Promise<IndexChange> {
    const add = await Promise.all(
      change.add.map(async (segment) => {
        const id = await this.sealer.storedId('segment', segment.id);
        return { id, bytes: await this.sealer.seal('segment', id, segment.bytes) };
      }),
    );
    const sealedBefore = this.sealedEntries;
    this.sealedEntries = new Map();
    const segments = await Promise.all(
      change.commit.segments.map(async (segment) => {
        const id = await this.sealer.storedId('segment', segment.id);
        const json = JSON.stringify(segment);
        // Most entries are unchanged since the last write: their sealed text is reused, not sealed again.
        const sealed = sealedBefore.get(json) ?? (await this.sealer.sealText('commit', id, json));
        this.sealedEntries.set(json, sealed);
        return { id, rounds: 0, dead: [], sealed };
      }),
    );
    return { add, commit: { segments: this.factsCache.withCache(segments) } };
  }

  /** The real commit: its entries opened one by one (or, as vmem first stored it, the whole commit sealed in one). */
  private async openCommit(stored: IndexCommit): Promise<IndexCommit> {
    if (stored.sealed !== undefined) return JSON.parse(await this.openText('commit', '', stored.sealed, () => 'the index commit')) as IndexCommit;
    const segments = await Promise.all(
      stored.segments
        .filter((segment) => !isCacheEntry(segment))
        .map(async (segment) => {
          if (segment.sealed === undefined) throw this.damaged(`the index commit's entry ${segment.id} is not sealed`);
          return JSON.parse(await this.openText('commit', segment.id, segment.sealed, () => `the index commit's entry ${segment.id}`)) as CommittedSegment;
        }),
    );
    return { segments };
  }

  private async openText(kind: string, id: string, sealed: string, what: () => string): Promise<string> {
    try {
      return await this.sealer.openText(kind, id, sealed);
    } catch (error) {
      if (error instanceof SealError) throw this.damaged(`${what()} fails to authenticate`, error);
      throw error;
    }
  }

  private damaged(what: string, cause?: unknown): VmemError {
    return new VmemError(
      'INTEGRITY_ERROR',
      `In ${this.label}, ${what}: it was changed or damaged outside vmem (or sealed under another key). Restore it from a backup, or forget the round; the rest of the memory is unaffected.`,
      { cause },
    );
  }
}
