/**
 * The container every index segment is written in: a versioned header, then named sections of
 * typed arrays, each 16-byte aligned so a reader can view them in place, then a checksum of all that
 * (checksum.ts). A segment is immutable and named by the SHA-256 of its bytes (`segmentId`): storage
 * keeps it as an opaque blob under that name. Reading it checks the checksum, which is fast enough
 * to check every segment each time a memory opens (SHA-256 is not, on a browser's main thread).
 *
 * Layout (little-endian):
 *   0   4 bytes  magic "VMSG"
 *   4   u32      format version (`SEGMENT_FORMAT`)
 *   8   u32      header length H
 *   12  u32      reserved (0)
 *   16  H bytes  header: UTF-8 JSON { kind, meta, sections: [{ name, type, offset, count }] }
 *   …   sections, from offsets relative to byte 0, each aligned to 16 bytes
 *   end − 32     the checksum of every byte before it
 */
import { toHex } from '../util/byte-text.js';
import { CHECKSUM_BYTES, checksum } from './checksum.js';


const MAGIC = [0x56, 0x4d, 0x53, 0x47]; // "VMSG"
/** The segment layout this code writes and reads; a change in what a segment holds bumps it. */
export const SEGMENT_FORMAT = 1;
const PREAMBLE = 16;
const ALIGN = 16;

const TYPES = {
  u8: Uint8Array,
  i8: Int8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  i32: Int32Array,
  f32: Float32Array,
  f64: Float64Array,
} as const;
export type SectionType = keyof typeof TYPES;
type ArrayOf<T extends SectionType> = InstanceType<(typeof TYPES)[T]>;
export type SectionArray = Uint8Array | Int8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

interface SectionEntry {
  readonly name: string;
  readonly type: SectionType;
  readonly offset: number;
  readonly count: number;
}

interface Header {
  readonly kind: string;
  readonly meta: Readonly<Record<string, unknown>>;
  readonly sections: readonly SectionEntry[];
}

/** Why a segment's bytes cannot be read: the caller names the memory and turns it into `INDEX_CORRUPT`. */
export class SegmentDamage extends Error {}

/** A segment version this code does not know: written by a newer vmem (or an older one it no longer reads). */
export class SegmentVersion extends Error {
  constructor(readonly version: number) {
    super(`index segment format ${version}; this vmem reads ${SEGMENT_FORMAT}`);
  }
}

function typeOf(array: SectionArray): SectionType {
  for (const [type, constructor] of Object.entries(TYPES)) if (array instanceof constructor) return type as SectionType;
  throw new TypeError('not a section array');
}

/** Writes a segment. `sections` keep their insertion order. */
export function encodeSegment(kind: string, meta: Readonly<Record<string, unknown>>, sections: Readonly<Record<string, SectionArray>>): Uint8Array {
  const names = Object.keys(sections);
  // Offsets depend on the header's length, which depends on the offsets' digits: fix both in two passes.
  let headerBytes = new Uint8Array(0);
  let entries: SectionEntry[] = [];
  for (let pass = 0; pass < 3; pass++) {
    let offset = align(PREAMBLE + headerBytes.length);
    entries = names.map((name) => {
      const array = sections[name]!;
      const entry = { name, type: typeOf(array), offset, count: array.length };
      offset = align(offset + array.byteLength);
      return entry;
    });
    const next = new TextEncoder().encode(JSON.stringify({ kind, meta, sections: entries } satisfies Header));
    if (next.length === headerBytes.length) {
      headerBytes = next;
      break;
    }
    headerBytes = next;
  }
  const last = entries[entries.length - 1];
  const total = last ? align(last.offset + sections[last.name]!.byteLength) : align(PREAMBLE + headerBytes.length);
  const out = new Uint8Array(total + CHECKSUM_BYTES);
  out.set(MAGIC, 0);
  const view = new DataView(out.buffer);
  view.setUint32(4, SEGMENT_FORMAT, true);
  view.setUint32(8, headerBytes.length, true);
  out.set(headerBytes, PREAMBLE);
  for (const entry of entries) {
    const array = sections[entry.name]!;
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), entry.offset);
  }
  out.set(checksum(out.subarray(0, total)), total);
  return out;
}

/** A decoded segment: its kind, meta, and typed views (or aligned copies) of its sections. */
export interface SegmentSections {
  readonly kind: string;
  readonly meta: Readonly<Record<string, unknown>>;
  has(name: string): boolean;
  /** The section as a typed array: a view of the bytes when aligned, else a copy. */
  get<T extends SectionType>(name: string, type: T): ArrayOf<T>;
}

/**
 * Reads a segment's structure; throws `SegmentDamage` for bytes that are not one or fail their
 * checksum, `SegmentVersion` for another format.
 */
export function decodeSegment(all: Uint8Array): SegmentSections {
  if (all.length < PREAMBLE + CHECKSUM_BYTES || (all.length - CHECKSUM_BYTES) % ALIGN !== 0 || MAGIC.some((byte, i) => all[i] !== byte)) throw new SegmentDamage('no segment signature');
  const view = new DataView(all.buffer, all.byteOffset, all.byteLength);
  const version = view.getUint32(4, true);
  if (version !== SEGMENT_FORMAT) throw new SegmentVersion(version);
  const bytes = all.subarray(0, all.length - CHECKSUM_BYTES);
  const sum = checksum(bytes);
  const stored = all.subarray(bytes.length);
  if (sum.some((byte, i) => byte !== stored[i])) throw new SegmentDamage('its bytes fail their checksum');
  const headerLength = view.getUint32(8, true);
  if (PREAMBLE + headerLength > bytes.length) throw new SegmentDamage('truncated header');
  let header: Header;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(PREAMBLE, PREAMBLE + headerLength))) as Header;
  } catch {
    throw new SegmentDamage('unreadable header');
  }
  if (typeof header?.kind !== 'string' || !Array.isArray(header.sections)) throw new SegmentDamage('malformed header');
  const byName = new Map<string, SectionEntry>();
  for (const entry of header.sections) {
    const constructor = TYPES[entry?.type as SectionType] as (typeof TYPES)[SectionType] | undefined;
    if (!constructor || !Number.isInteger(entry.offset) || !Number.isInteger(entry.count) || entry.offset < 0 || entry.count < 0) throw new SegmentDamage(`malformed section ${String(entry?.name)}`);
    if (entry.offset + entry.count * constructor.BYTES_PER_ELEMENT > bytes.length) throw new SegmentDamage(`section ${entry.name} runs past the end`);
    byName.set(entry.name, entry);
  }
  return {
    kind: header.kind,
    meta: header.meta ?? {},
    has: (name) => byName.has(name),
    get<T extends SectionType>(name: string, type: T): ArrayOf<T> {
      const entry = byName.get(name);
      if (!entry || entry.type !== type) throw new SegmentDamage(`no ${type} section ${name}`);
      const constructor = TYPES[type] as unknown as { new (buffer: ArrayBufferLike, offset: number, length: number): ArrayOf<T>; BYTES_PER_ELEMENT: number };
      const start = bytes.byteOffset + entry.offset;
      if (start % constructor.BYTES_PER_ELEMENT === 0) return new constructor(bytes.buffer, start, entry.count);
      const copy = bytes.slice(entry.offset, entry.offset + entry.count * constructor.BYTES_PER_ELEMENT);
      return new constructor(copy.buffer, 0, entry.count);
    },
  };
}

/** A segment's name: the SHA-256 of its bytes, in hex (WebCrypto, in browsers and Node alike). */
export async function segmentId(bytes: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)));
}

function align(offset: number): number {
  return Math.ceil(offset / ALIGN) * ALIGN;
}
