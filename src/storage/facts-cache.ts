/**
 * Opening an encrypted memory needs every round's facts, each sealed on its own (rounds are
 * replaced and removed one by one); opening 10,000 records one WebCrypto call each costs most of a
 * second. So an encrypted store also keeps, as one extra sealed segment named in its commit, the
 * facts of all rounds as of some write, each under its round's stored id and the end of its sealed
 * facts (the GCM tag). A round whose sealed facts changed since is not found in it and is opened on
 * its own; once that grows to `STALE_ROUNDS`, the cache is written again with the next add (or when
 * the memory closes). It is a cache: losing it only slows the next open.
 */
import type { Sealer } from './sealer.js';
import type { CommittedSegment, IndexCommit, RoundFacts } from './types.js';

/** Rounds opened on their own before a fresh cache is worth its write (a few hundred records cost a few ms each way). */
const STALE_ROUNDS = 256;
/** How the store's commit marks the cache among the index segments. */
const CACHE_MARK = -1;
const KIND = 'facts-cache';

/** Whether an entry of the store's commit is the cache rather than an index segment. */
export function isCacheEntry(segment: CommittedSegment): boolean {
  return segment.rounds === CACHE_MARK;
}

/** What tells one version of a round's sealed facts from another: their last characters (the GCM tag is in them). */
function tagOf(sealedFacts: string): string {
  return sealedFacts.slice(-32);
}

/** Stored round ids are 64 hex digits; an entry's key on disk is `<stored id>:<tag>`. */
const STORED_ID_LENGTH = 64;

interface Entry {
  readonly tag: string;
  readonly facts: RoundFacts;
}

export class FactsCache {
  /** The cache as read or last written, by stored round id. */
  private cached = new Map<string, Entry>();
  /** Every round's current entry, by stored id, once the memory was opened; `missing` counts those the cache lacks. */
  private readonly current = new Map<string, Entry & { readonly cached: boolean }>();
  private missing = 0;
  private segmentId: string | undefined;
  private opened = false;

  /** Reads (with `read`, by stored segment id) the cache the commit names, if any. A cache that fails to authenticate is ignored: every round is then opened on its own. */
  async load(sealer: Sealer, commit: IndexCommit | undefined, read: (storedId: string) => Promise<Uint8Array | undefined>): Promise<void> {
    this.opened = true;
    this.segmentId = commit?.segments.find(isCacheEntry)?.id;
    if (!this.segmentId) return;
    const bytes = await read(this.segmentId);
    if (!bytes) return;
    const plain = await sealer.open(KIND, this.segmentId, bytes, true).catch(() => undefined);
    if (!plain) return;
    const entries = JSON.parse(new TextDecoder().decode(plain)) as [string, RoundFacts][];
    this.cached = new Map(entries.map(([key, facts]) => [key.slice(0, STORED_ID_LENGTH), { tag: key.slice(STORED_ID_LENGTH + 1), facts }]));
  }

  lookup(storedId: string, sealedFacts: string): RoundFacts | undefined {
    const entry = this.cached.get(storedId);
    return entry && entry.tag === tagOf(sealedFacts) ? entry.facts : undefined;
  }

  remember(storedId: string, sealedFacts: string, facts: RoundFacts): void {
    const tag = tagOf(sealedFacts);
    const cached = this.cached.get(storedId)?.tag === tag;
    const before = this.current.get(storedId);
    if (before && !before.cached) this.missing--;
    this.current.set(storedId, { tag, facts, cached });
    if (!cached) this.missing++;
  }

  forget(storedId: string): void {
    const entry = this.current.get(storedId);
    if (entry && !entry.cached) this.missing--;
    this.current.delete(storedId);
  }

  clear(): void {
    this.cached.clear();
    this.current.clear();
    this.missing = 0;
    this.segmentId = undefined;
  }

  /** The commit's segments with the cache's entry kept (the store drops segments its commit does not name). */
  withCache(segments: readonly CommittedSegment[]): CommittedSegment[] {
    return this.segmentId ? [...segments, { id: this.segmentId, rounds: CACHE_MARK, dead: [] }] : [...segments];
  }

  /** Whether enough rounds miss the cache that a fresh one is worth writing. */
  get stale(): boolean {
    return this.opened && (this.missing >= STALE_ROUNDS || this.cached.size > this.current.size + STALE_ROUNDS);
  }

  /**
   * A fresh cache of every round's current facts, sealed, and the store's commit naming it in place
   * of the old one. Call `adopt` once the store holds them.
   */
  async fresh(sealer: Sealer, commit: IndexCommit): Promise<{ segment: { id: string; bytes: Uint8Array }; commit: IndexCommit; adopt(): void }> {
    const id = [...crypto.getRandomValues(new Uint8Array(32))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
    const current = [...this.current];
    const bytes = await sealer.seal(KIND, id, new TextEncoder().encode(JSON.stringify(current.map(([storedId, { tag, facts }]) => [`${storedId}:${tag}`, facts]))));
    const segments = commit.segments.filter((segment) => !isCacheEntry(segment));
    const adopt = () => {
      this.cached = new Map(current.map(([storedId, { tag, facts }]) => [storedId, { tag, facts }]));
      this.missing = 0;
      for (const [storedId, entry] of this.current) {
        const cached = this.cached.get(storedId)?.tag === entry.tag;
        if (!cached) this.missing++;
        this.current.set(storedId, { ...entry, cached });
      }
      this.segmentId = id;
    };
    return { segment: { id, bytes }, commit: { ...commit, segments: [...segments, { id, rounds: CACHE_MARK, dead: [] }] }, adopt };
  }
}
