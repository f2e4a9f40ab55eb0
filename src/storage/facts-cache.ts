/**
 * Opening an encrypted memory needs every round's facts, each sealed on its own (rounds are
 * replaced and removed one by one); opening 10,000 records one WebCrypto call each costs most of a
 * second. So an encrypted store also keeps, as one extra sealed segment named in its commit, the
 * facts of all rounds as of some write, each under its round's stored id and the end of its sealed
 * facts (the GCM tag). A round whose sealed facts changed since is not found in it and is opened on
 * its own; the cache is written again when that grows to `STALE_ROUNDS`. It is a cache: losing it
 * only slows the next open.
 */
import type { Sealer } from './sealer.js';
import type { CommittedSegment, IndexCommit, MemoryStorage, RoundFacts } from './types.js';

/** Rounds opened on their own before a fresh cache is worth its write (a few hundred records cost a few ms each way). */
const STALE_ROUNDS = 256;
/** How the store's commit marks the cache among the index segments. */
const CACHE_MARK = -1;
const KIND = 'facts-cache';

/** A round's entry: its stored id and the last characters of its sealed facts (the GCM tag is in them). */
function entryKey(storedId: string, sealedFacts: string): string {
  return `${storedId}:${sealedFacts.slice(-32)}`;
}

export class FactsCache {
  private cached = new Map<string, RoundFacts>();
  /** Every round's current entry, by stored id, once the memory was opened. */
  private readonly current = new Map<string, { readonly key: string; readonly facts: RoundFacts }>();
  private segmentId: string | undefined;
  private opened = false;

  /** Reads the cache the commit names, if any. A cache that fails to authenticate is ignored: every round is then opened on its own. */
  async load(inner: MemoryStorage, sealer: Sealer, commit: IndexCommit | undefined): Promise<void> {
    this.opened = true;
    this.segmentId = commit?.segments.find((segment) => segment.rounds === CACHE_MARK)?.id;
    if (!this.segmentId) return;
    const [bytes] = await inner.readSegments([this.segmentId]);
    if (!bytes) return;
    const plain = await sealer.open(KIND, this.segmentId, bytes).catch(() => undefined);
    if (plain) this.cached = new Map(JSON.parse(new TextDecoder().decode(plain)) as [string, RoundFacts][]);
  }

  lookup(storedId: string, sealedFacts: string): RoundFacts | undefined {
    return this.cached.get(entryKey(storedId, sealedFacts));
  }

  remember(storedId: string, sealedFacts: string, facts: RoundFacts): void {
    this.current.set(storedId, { key: entryKey(storedId, sealedFacts), facts });
  }

  forget(storedId: string): void {
    this.current.delete(storedId);
  }

  clear(): void {
    this.cached.clear();
    this.current.clear();
    this.segmentId = undefined;
  }

  /** The commit's segments with the cache's entry kept (the store drops segments its commit does not name). */
  withCache(segments: readonly CommittedSegment[]): CommittedSegment[] {
    return this.segmentId ? [...segments, { id: this.segmentId, rounds: CACHE_MARK, dead: [] }] : [...segments];
  }

  /** Whether enough rounds miss the cache that a fresh one is worth writing. */
  get stale(): boolean {
    if (!this.opened) return false;
    let missing = 0;
    for (const { key } of this.current.values()) if (!this.cached.has(key)) missing++;
    return missing >= STALE_ROUNDS || this.cached.size > this.current.size + STALE_ROUNDS;
  }

  /** A fresh cache of every round's current facts, sealed, and the store's commit naming it in place of the old one. */
  async fresh(sealer: Sealer, commit: IndexCommit): Promise<{ segment: { id: string; bytes: Uint8Array }; commit: IndexCommit }> {
    const id = [...crypto.getRandomValues(new Uint8Array(32))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
    const entries = [...this.current.values()].map(({ key, facts }) => [key, facts] as const);
    const bytes = await sealer.seal(KIND, id, new TextEncoder().encode(JSON.stringify(entries)));
    this.cached = new Map(entries);
    this.segmentId = id;
    const segments = commit.segments.filter((segment) => segment.rounds !== CACHE_MARK);
    return { segment: { id, bytes }, commit: { ...commit, segments: this.withCache(segments) } };
  }
}
