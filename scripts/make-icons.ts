/**
 * Draws the PWA icons (a white "memory" ring with a dot on the brand blue) into public/icons/.
 * Run once when the design changes: `npx tsx scripts/make-icons.ts`; the PNGs are committed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';

function drawIcon(size: number, maskable: boolean): Buffer {
  const png = new PNG({ width: size, height: size });
  const centre = size / 2;
  // Maskable icons keep their drawing inside the central 80 % safe zone.
  const scale = maskable ? 0.8 : 1;
  const outer = size * 0.36 * scale;
  const inner = size * 0.24 * scale;
  const dot = size * 0.09 * scale;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const distance = Math.hypot(x + 0.5 - centre, y + 0.5 - centre);
      const white = (distance <= outer && distance >= inner) || distance <= dot;
      const offset = (y * size + x) * 4;
      png.data[offset] = white ? 255 : 0x1f;
      png.data[offset + 1] = white ? 255 : 0x4e;
      png.data[offset + 2] = white ? 255 : 0x79;
      png.data[offset + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

mkdirSync('public/icons', { recursive: true });
writeFileSync('public/icons/icon-192.png', drawIcon(192, false));
writeFileSync('public/icons/icon-512.png', drawIcon(512, false));
writeFileSync('public/icons/icon-maskable-512.png', drawIcon(512, true));
console.log('wrote public/icons/icon-{192,512,maskable-512}.png');
