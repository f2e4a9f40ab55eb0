/**
 * Opening an encrypted memory needs every round's facts, each sealed on its own (rounds are
 * replaced and removed one by one); opening 10,000 records one WebCrypto call each costs most of a
 * second. So an encrypted store also keeps, as one extra sealed segment named in its commit, the
 * facts of all rounds as of some write, each under its round's stored id and version (the random
 * `meta.version` of its stored record; for a round sealed by vmem 9402260 or before, the end of its
 * sealed facts, where the GCM tag is). A round whose version changed since is not found in it and
 * is opened on its own; once that grows to `STALE_ROUNDS`, the cache is written again with the next
 * add (and whenever the memory closes changed). It is a cache: losing it only slows the next open.
 *
 * Its plaintext is a header line (`{"format":2,"fingerprint":…,"factsBytes":…}`), the facts as one
 * JSON list in the store's order, then the keys (`<stored id>:<version>`) as another. The fingerprint
 * is the SHA-256 of the keys in order: when the store's rounds give the same one, the facts line up
 * with them one for one, and the keys are never parsed, so an open parses no more JSON for its facts
 * than an unencrypted one. (vmem 9402260 wrote the cache as one JSON list of `[key, facts]` pairs;
 * it is still read.)
 */
import { toBase64 } from '../util/byte-text.js';
import type { Sealer } from './sealer.js';
import type { CommittedSegment, IndexCommit, RoundFacts } from './types.js';

/** Rounds opened on their own before a fresh cache is worth its write with an add (a few hundred records cost a few ms each way). */
const STALE_ROUNDS = 256;
/** How the store's commit marks the cache among the index segments. */
const CACHE_MARK = -1;
const KIND = 'facts-cache';
const FORMAT = 2;
const NEWLINE = 0x0a;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** Whether an entry of the store's commit is the cache rather than an index segment. */
export function isCacheEntry(segment: CommittedSegment): boolean {
  return segment.rounds === CACHE_MARK;
}

/** What tells one version of a round's sealed facts from another, for rounds sealed by vmem 9402260 or before: their last characters (the GCM tag is in them). */
export function legacyVersionOf(sealedFacts: string): string {
  return sealedFacts.slice(-32);
}

/** A round's key in the cache: `<stored id>:<version>`. */
const keyOf = (storedId: string, version: string) => `${storedId}:${version}`;

/** A round as the store holds it: what finds its facts in the cache. */
export interface StoredVersion {
  readonly storedId: string;
  readonly version: string;
  readonly seq: number;
}

/**
 * The SHA-256 of the keys in order, one a line (base64): what says that a cache lines up with the
 * store's rounds. Keys are ASCII (hex and base64), copied byte by byte: encoding 10,000 of them
 * joined with TextEncoder took 4-12 ms of an open's main thread here, this about 1.
 */
async function fingerprintOf(rounds: readonly Pick<StoredVersion, 'storedId' | 'version'>[]): Promise<string> {
  let length = 0;
  for (const { storedId, version } of rounds) length += storedId.length + version.length + 2;
  const bytes = new Uint8Array(Math.max(0, length - 1));
  let at = 0;
  const copy = (text: string) => {
    for (let index = 0; index < text.length; index++) bytes[at++] = text.charCodeAt(index);
  };
  for (const { storedId, version } of rounds) {
    // Not ASCII (no key vmem writes): the text encoder's bytes, so that no two keys read alike.
    if (!ASCII.test(storedId) || !ASCII.test(version)) return toBase64(new Uint8Array(await crypto.subtle.digest('SHA-256', utf8.encode(rounds.map((round) => keyOf(round.storedId, round.version)).join('\n')))));
    if (at > 0) bytes[at++] = NEWLINE;
    copy(storedId);
    bytes[at++] = COLON;
    copy(version);
  }
  return toBase64(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
}

const ASCII = /^[\x00-\x7f]*$/;
const COLON = 0x3a;

interface Entry {
  readonly version: string;
  readonly facts: RoundFacts;
}

/** A cache as read: its facts, and its keys parsed only when they are needed. */
interface Loaded {
  readonly fingerprint: string | undefined;
  readonly facts: () => RoundFacts[];
  readonly keys: () => string[];
}

/** Version 2's parts, or vmem 9402260's list of pairs; undefined for a format this version does not know (a newer vmem's: as good as no cache). */
function parseCache(plain: Uint8Array): Loaded | undefined {
  if (plain[0] !== 0x7b) {
    const pairs = JSON.parse(fromUtf8.decode(plain)) as [string, RoundFacts][];
    return { fingerprint: undefined, facts: () => pairs.map(([, facts]) => facts), keys: () => pairs.map(([key]) => key) };
  }
  const headerEnd = plain.indexOf(NEWLINE);
  const header = JSON.parse(fromUtf8.decode(plain.subarray(0, headerEnd))) as { format: number; fingerprint: string; factsBytes: number };
  if (header.format !== FORMAT) return undefined;
  const factsEnd = headerEnd + 1 + header.factsBytes;
  return {
    fingerprint: header.fingerprint,
    facts: () => JSON.parse(fromUtf8.decode(plain.subarray(headerEnd + 1, factsEnd))) as RoundFacts[],
    keys: () => JSON.parse(fromUtf8.decode(plain.subarray(factsEnd))) as string[],
  };
}

export class FactsCache {
  /** The version of each round in the cache as read or last written, by stored round id. */
  private cached = new Map<string, string>();
  private loaded: Loaded | undefined;
  /**
   * Every round's current entry, by stored id, once the memory was opened; `missing` counts those
   * the cache lacks. After an open that found every round in the cache, it is made only when
   * something changes (`lined`: the rounds as matched), which spares the open 10,000 entries.
   */
  private current = new Map<string, Entry & { readonly cached: boolean }>();
  private lined: { readonly rounds: readonly StoredVersion[]; readonly facts: readonly RoundFacts[] } | undefined;
  private missing = 0;
  private segmentId: string | undefined;
  private opened = false;

  /**
   * Reads (with `read`, by stored segment id) and decrypts the cache the commit names, if any. A
   * cache that fails to authenticate is ignored: every round is then opened on its own.
   */
  async load(sealer: Sealer, commit: IndexCommit | undefined, read: (storedId: string) => Promise<Uint8Array | undefined>): Promise<void> {
    this.opened = true;
    this.segmentId = commit?.segments.find(isCacheEntry)?.id;
    if (!this.segmentId) return;
    const bytes = await read(this.segmentId);
    if (!bytes) return;
    const plain = await sealer.open(KIND, this.segmentId, bytes, true).catch(() => undefined);
    if (plain) this.loaded = parseCache(plain);
  }

  /**
   * The cached facts of each round the store holds (in the store's order), with the store's seq (it
   * may renumber rounds: a write merged after another tab's), or undefined for a round the cache
   * lacks (`remember` it once opened).
   */
  async match(rounds: readonly StoredVersion[]): Promise<(RoundFacts | undefined)[]> {
    const loaded = this.loaded;
    this.loaded = undefined;
    this.cached = new Map();
    this.current = new Map();
    this.missing = 0;
    if (!loaded) return rounds.map(() => undefined);
    const facts = loaded.facts();
    if (loaded.fingerprint !== undefined && facts.length === rounds.length && loaded.fingerprint === (await fingerprintOf(rounds))) {
      for (let at = 0; at < facts.length; at++) if (facts[at]!.seq !== rounds[at]!.seq) facts[at] = { ...facts[at]!, seq: rounds[at]!.seq };
      this.lined = { rounds, facts };
      return facts;
    }
    const found = new Map(loaded.keys().map((key, at) => [key, facts[at]!]));
    return rounds.map(({ storedId, version, seq }) => {
      const cached = found.get(keyOf(storedId, version));
      if (!cached) return undefined;
      const facts = cached.seq === seq ? cached : { ...cached, seq };
      this.cached.set(storedId, version);
      this.current.set(storedId, { version, facts, cached: true });
      return facts;
    });
  }

  /** The entries of rounds an open found lined up with the cache, made now that something changes. */
  private unline(): void {
    const lined = this.lined;
    if (!lined) return;
    this.lined = undefined;
    lined.rounds.forEach(({ storedId, version }, at) => {
      this.cached.set(storedId, version);
      this.current.set(storedId, { version, facts: lined.facts[at]!, cached: true });
    });
  }

  /** Records a round's current facts (opened on their own, or just written). */
  remember(storedId: string, version: string, facts: RoundFacts): void {
    this.unline();
    const cached = this.cached.get(storedId) === version;
    const before = this.current.get(storedId);
    if (before && !before.cached) this.missing--;
    this.current.set(storedId, { version, facts, cached });
    if (!cached) this.missing++;
  }

  forget(storedId: string): void {
    this.unline();
    const entry = this.current.get(storedId);
    if (entry && !entry.cached) this.missing--;
    this.current.delete(storedId);
  }

  clear(): void {
    this.lined = undefined;
    this.cached.clear();
    this.current.clear();
    this.loaded = undefined;
    this.missing = 0;
    this.segmentId = undefined;
  }

  /** The commit's segments with the cache's entry kept (the store drops segments its commit does not name). */
  withCache(segments: readonly CommittedSegment[]): CommittedSegment[] {
    return this.segmentId ? [...segments, { id: this.segmentId, rounds: CACHE_MARK, dead: [] }] : [...segments];
  }

  /** Whether enough rounds miss the cache that a fresh one is worth writing with an add. */
  get stale(): boolean {
    return this.opened && !this.lined && (this.missing >= STALE_ROUNDS || this.cached.size > this.current.size + STALE_ROUNDS);
  }

  /** Whether the cache differs from the rounds at all: closing the memory then writes a fresh one, so that the next open finds them lined up. */
  get changed(): boolean {
    return this.opened && !this.lined && (this.missing > 0 || this.cached.size !== this.current.size);
  }

  /**
   * A fresh cache of every round's current facts, sealed, and the store's commit naming it in place
   * of the old one. Call `adopt` once the store holds them.
   */
  async fresh(sealer: Sealer, commit: IndexCommit): Promise<{ segment: { id: string; bytes: Uint8Array }; commit: IndexCommit; adopt(): void }> {
    this.unline();
    const id = [...crypto.getRandomValues(new Uint8Array(32))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
    // In the store's order (by seq), so that the next open finds them lined up with its rounds.
    const current = [...this.current].sort(([, a], [, b]) => a.facts.seq - b.facts.seq);
    const rounds = current.map(([storedId, { version }]) => ({ storedId, version }));
    const facts = utf8.encode(JSON.stringify(current.map(([, entry]) => entry.facts)));
    const header = utf8.encode(`${JSON.stringify({ format: FORMAT, fingerprint: await fingerprintOf(rounds), factsBytes: facts.byteLength })}\n`);
    const tail = utf8.encode(JSON.stringify(rounds.map(({ storedId, version }) => keyOf(storedId, version))));
    const plain = new Uint8Array(header.byteLength + facts.byteLength + tail.byteLength);
    plain.set(header);
    plain.set(facts, header.byteLength);
    plain.set(tail, header.byteLength + facts.byteLength);
    const bytes = await sealer.seal(KIND, id, plain);
    const segments = commit.segments.filter((segment) => !isCacheEntry(segment));
    const adopt = () => {
      this.cached = new Map(rounds.map(({ storedId, version }) => [storedId, version]));
      this.missing = 0;
      for (const [storedId, entry] of this.current) {
        const cached = this.cached.get(storedId) === entry.version;
        if (!cached) this.missing++;
        this.current.set(storedId, { ...entry, cached });
      }
      this.segmentId = id;
    };
    return { segment: { id, bytes }, commit: { ...commit, segments: [...segments, { id, rounds: CACHE_MARK, dead: [] }] }, adopt };
  }
}
