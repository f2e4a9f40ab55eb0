/**
 * Between the lanes (which search segments in memory) and storage (which keeps them as blobs): a
 * segment's bytes and name, the commit a write stores, and opening the committed segments.
 */
import { errorCode, VmemError } from '../errors.js';
import type { Lanes, SegmentEntry } from '../lanes/lanes.js';
import { decodeSegmentData, encodeSegmentData, type SegmentData } from '../lanes/segment.js';
import { SegmentDamage, SegmentVersion, segmentId } from '../lanes/segment-file.js';
import type { CommittedSegment, IndexChange, IndexCommit, IndexSegment, MemoryStorage } from '../storage/types.js';
import { yieldAfter, yieldTask } from '../util/yield-task.js';

/** A segment ready for storage: its bytes and name, and its data for the lanes. */
export interface NewSegment extends IndexSegment {
  readonly data: SegmentData;
}

export async function writeSegment(data: SegmentData): Promise<NewSegment> {
  const bytes = encodeSegmentData(data);
  return { id: await segmentId(bytes), bytes, data };
}

/** The index change of a write: the commit (`entries`, and the new segment after them) and the new segment's bytes. */
export function indexChange(entries: readonly SegmentEntry[], segment?: NewSegment): IndexChange {
  const commit: IndexCommit = { segments: segment ? [...entries, { id: segment.id, rounds: segment.data.roundIds.length, dead: [] }] : [...entries] };
  return { add: segment ? [{ id: segment.id, bytes: segment.bytes }] : [], commit };
}

/** The commit's entries with rounds (by segment and local number) marked dead. */
export function withDead(entries: readonly SegmentEntry[], marks: readonly { segment: string; local: number }[]): SegmentEntry[] {
  return entries.map((entry) => {
    const more = marks.filter((mark) => mark.segment === entry.id).map((mark) => mark.local);
    return more.length === 0 ? entry : { ...entry, dead: [...new Set([...entry.dead, ...more])].sort((a, b) => a - b) };
  });
}

/** A committed segment that could not be used, and why. */
export interface DamagedSegment {
  readonly id: string;
  readonly reason: string;
}

/**
 * Reads the committed segments, checks each one's checksum and structure, and attaches the good ones
 * to `lanes` in commit order (their names, the SHA-256 of their bytes, are not computed again). Damaged or missing ones are
 * left out and returned: their rounds are then simply not indexed, and the caller rebuilds them.
 * A segment written by a newer vmem rejects with `STORAGE_FAILED` (rebuilding it could lose what
 * that version stored).
 */
export async function attachCommitted(storage: MemoryStorage, lanes: Lanes, commit: IndexCommit | undefined): Promise<DamagedSegment[]> {
  const segments = commit?.segments ?? [];
  if (segments.length === 0) return [];
  const bytes = await storage.readSegments(segments.map((segment) => segment.id));
  // Reading the last segment, decoding them all and attaching them were one task of 50 ms and more
  // on a 10k-round memory (with the facts before it, in an encrypted one), and of 300 ms on a 100k
  // one: the page gets a turn first, and then every 10 ms within and between segments.
  await yieldTask();
  const pause = yieldAfter();
  const damaged: DamagedSegment[] = [];
  const decoded: (SegmentData | undefined)[] = [];
  for (const [at, entry] of segments.entries()) {
    const segment = bytes[at];
    bytes[at] = undefined;
    decoded.push(segment ? decodeEntry(storage, entry, segment, damaged) : void damaged.push({ id: entry.id, reason: 'it is missing from storage' }));
    await pause();
  }
  lanes.reserve(decoded.filter((data): data is SegmentData => data !== undefined));
  await pause();
  for (const [at, data] of decoded.entries()) {
    if (!data) continue;
    try {
      for (const step of lanes.attachSteps(segments[at]!.id, data, segments[at]!.dead)) {
        void step;
        await pause();
      }
    } catch (error) {
      // Only a segment of another memory's dimensions gets here (decoding checked everything else).
      if (!(error instanceof SegmentDamage)) throw error;
      damaged.push({ id: segments[at]!.id, reason: error.message });
    }
    decoded[at] = undefined;
    await pause();
  }
  await yieldTask();
  return damaged;
}

/** A stored segment's data, checked against its commit entry; undefined (and `damaged` told why) when it is damaged. */
function decodeEntry(storage: MemoryStorage, entry: CommittedSegment, segment: Uint8Array, damaged: DamagedSegment[]): SegmentData | undefined {
  try {
    const data = decodeSegmentData(segment);
    if (data.roundIds.length !== entry.rounds) throw new SegmentDamage(`it holds ${data.roundIds.length} rounds, the commit says ${entry.rounds}`);
    return data;
  } catch (error) {
    if (error instanceof SegmentVersion) {
      throw new VmemError('STORAGE_FAILED', `The index of ${storage.label} was written by a newer vmem (${error.message}); update vmem to open it.`, { cause: error });
    }
    if (!(error instanceof SegmentDamage)) throw error;
    damaged.push({ id: entry.id, reason: error.message });
    return undefined;
  }
}

/** The `INDEX_CORRUPT` error for damaged segments, naming the memory. */
export function indexCorrupt(label: string, damaged: readonly DamagedSegment[], strays: readonly string[]): VmemError {
  const parts = [
    ...damaged.map((segment) => `segment ${segment.id.slice(0, 12)}… (${segment.reason})`),
    ...(strays.length > 0 ? [`${strays.length} indexed round(s) that are not stored (${strays.slice(0, 3).join(', ')})`] : []),
  ];
  return new VmemError('INDEX_CORRUPT', `The index of ${label} is damaged: ${parts.join('; ')}. It is rebuilt from the stored rounds; nothing stored is lost.`);
}

/** True for a failure storage reports as a lost write race (another tab), which a background merge just skips. */
export function isLostRace(error: unknown): boolean {
  return errorCode(error) === 'MEMORY_LOCKED';
}
