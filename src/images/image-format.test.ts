import { describe, expect, it } from 'vitest';
import { describeFormat, sniffImageFormat } from './image-format.js';

const ascii = (s: string): number[] => Array.from(s, (c) => c.charCodeAt(0));

describe('sniffImageFormat', () => {
  it('recognises common formats by magic bytes', () => {
    expect(sniffImageFormat(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
    expect(sniffImageFormat(new Uint8Array([0x89, ...ascii('PNG\r\n\x1a\n')]))).toBe('png');
    expect(sniffImageFormat(new Uint8Array(ascii('GIF89a')))).toBe('gif');
    expect(sniffImageFormat(new Uint8Array([...ascii('RIFF'), 1, 2, 3, 4, ...ascii('WEBPVP8 ')]))).toBe('webp');
    expect(sniffImageFormat(new Uint8Array([0, 0, 0, 0x1c, ...ascii('ftypavif')]))).toBe('avif');
    expect(sniffImageFormat(new Uint8Array(ascii('hello')))).toBeUndefined();
    expect(sniffImageFormat(new Uint8Array())).toBeUndefined();
  });

  it('describes unknown bytes with their size, first bytes and declared type', () => {
    expect(describeFormat(new Uint8Array([1, 2, 255]), 'image/png')).toBe('an unrecognised file (3 bytes, starting 01 02 ff, declared image/png)');
  });
});
