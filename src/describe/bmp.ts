import type { RgbaImage } from '../encoders/types.js';

/**
 * Encodes pixels as an uncompressed 24-bit BMP: the cheapest file any decoder reads (Tesseract's
 * Leptonica does), so OCR gets exactly the pixels analysed, in Node and in workers alike.
 * Alpha is dropped.
 */
export function encodeBmp(image: RgbaImage): Uint8Array {
  const { width, height, data } = image;
  const rowBytes = Math.ceil((width * 3) / 4) * 4;
  const headerBytes = 54;
  const out = new Uint8Array(headerBytes + rowBytes * height);
  const view = new DataView(out.buffer);
  out[0] = 0x42; // 'B'
  out[1] = 0x4d; // 'M'
  view.setUint32(2, out.length, true);
  view.setUint32(10, headerBytes, true);
  view.setUint32(14, 40, true); // BITMAPINFOHEADER
  view.setInt32(18, width, true);
  view.setInt32(22, height, true); // positive: rows stored bottom-up
  view.setUint16(26, 1, true);
  view.setUint16(28, 24, true);
  view.setUint32(34, rowBytes * height, true);
  for (let y = 0; y < height; y++) {
    let at = headerBytes + (height - 1 - y) * rowBytes;
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      out[at++] = data[p + 2]!;
      out[at++] = data[p + 1]!;
      out[at++] = data[p]!;
    }
  }
  return out;
}
