/**
 * Many strings in two typed arrays: their UTF-16 code units one after the other, and where each ends.
 * UTF-16 rather than UTF-8 so that any JS string (a lone surrogate in a round id included) comes back
 * exactly, and so that a sorted table can be searched by comparing code units without decoding.
 */
export interface StringTable {
  readonly units: Uint16Array;
  /** `ends[i]`: one past the last code unit of string `i`. */
  readonly ends: Uint32Array;
}

export function encodeStrings(strings: readonly string[]): StringTable {
  let total = 0;
  for (const text of strings) total += text.length;
  const units = new Uint16Array(total);
  const ends = new Uint32Array(strings.length);
  let at = 0;
  strings.forEach((text, index) => {
    for (let i = 0; i < text.length; i++) units[at + i] = text.charCodeAt(i);
    at += text.length;
    ends[index] = at;
  });
  return { units, ends };
}

/** Every string of the table, decoded in one pass. */
export function decodeStrings(table: StringTable): string[] {
  const joined = wellFormed(table.units) ? utf16.decode(table.units) : decodeUnits(table.units, 0, table.units.length);
  const out = new Array<string>(table.ends.length);
  let start = 0;
  for (let i = 0; i < table.ends.length; i++) {
    const end = table.ends[i]!;
    out[i] = joined.slice(start, end);
    start = end;
  }
  return out;
}

/**
 * The index of `text` in a table sorted by code units (JS string order), or -1. Compares code units
 * in place: a lookup decodes nothing.
 */
export function findString(table: StringTable, text: string): number {
  const { units, ends } = table;
  let low = 0;
  let high = ends.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const start = middle === 0 ? 0 : ends[middle - 1]!;
    const length = ends[middle]! - start;
    let order = 0;
    const shared = Math.min(length, text.length);
    for (let i = 0; i < shared && order === 0; i++) order = units[start + i]! - text.charCodeAt(i);
    if (order === 0) order = length - text.length;
    if (order === 0) return middle;
    if (order < 0) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

const utf16 = new TextDecoder('utf-16le');

/**
 * No lone surrogate: the native decoder then gives the same string as `decodeUnits` (it would put
 * U+FFFD for a lone one, and ids are free text). Big-endian platforms would need a byte swap: none
 * that runs vmem is.
 */
function wellFormed(units: Uint16Array): boolean {
  for (let i = 0; i < units.length; i++) {
    const unit = units[i]!;
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit > 0xdbff || i + 1 >= units.length || units[i + 1]! < 0xdc00 || units[i + 1]! > 0xdfff) return false;
    i++;
  }
  return true;
}

function decodeUnits(units: Uint16Array, start: number, end: number): string {
  let out = '';
  // fromCharCode takes its arguments on the stack: decode in slices.
  for (let at = start; at < end; at += 8192) out += String.fromCharCode(...units.subarray(at, Math.min(end, at + 8192)));
  return out;
}
