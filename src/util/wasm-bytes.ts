/**
 * The few pieces of the WebAssembly binary format that our hand-assembled kernel needs
 * (`src/lanes/int8-dots.ts`): no toolchain, no extra file to serve.
 */

/** Value types. */
export const I32 = 0x7f;
export const V128 = 0x7b;

/** Unsigned LEB128. */
export function uleb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

/** A section: its id, then its size, then its contents. */
export const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
/** A vector: its length, then its items. */
export const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
/** A name (ASCII). */
export const name = (text: string): number[] => vec([...text].map((ch) => [ch.charCodeAt(0)]));
