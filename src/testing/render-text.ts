import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pngjs from 'pngjs';
import * as PImage from 'pureimage';

/**
 * Test-only: draws pictures with real text in them (a DejaVu Sans TrueType font rasterised by
 * pureimage), written as PNG, so OCR tests need no fixture files.
 */

const require = createRequire(import.meta.url);
const FONT_FAMILY = 'DejaVu Sans';
let fontLoaded: Promise<void> | undefined;

function loadFont(): Promise<void> {
  fontLoaded ??= PImage.registerFont(join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf', 'DejaVuSans.ttf'), FONT_FAMILY).load();
  return fontLoaded;
}

/** What `renderDialog` draws: an application window's error dialog over a desktop. */
export interface DialogPicture {
  readonly title: string;
  /** Body text, one entry per line. */
  readonly lines: readonly string[];
  /** @default 'OK' */
  readonly button?: string;
}

/**
 * A 640×360 screenshot of a dialog box: a red title bar with white text, black body text on light
 * grey, a button, on a blue desktop.
 * @example const png = await renderDialog({ title: 'Error', lines: ['Disk quota exceeded.'] });
 */
export async function renderDialog(dialog: DialogPicture): Promise<Uint8Array> {
  await loadFont();
  const bitmap = PImage.make(640, 360);
  const context = bitmap.getContext('2d');
  context.fillStyle = '#3a6ea5';
  context.fillRect(0, 0, 640, 360);
  context.fillStyle = '#f0f0f0';
  context.fillRect(120, 80, 400, 200);
  context.fillStyle = '#c42b1c';
  context.fillRect(120, 80, 400, 32);
  context.fillStyle = '#ffffff';
  context.font = `18pt '${FONT_FAMILY}'`;
  context.fillText(dialog.title, 132, 104);
  context.fillStyle = '#000000';
  context.font = `14pt '${FONT_FAMILY}'`;
  dialog.lines.forEach((line, index) => context.fillText(line, 140, 150 + index * 26));
  context.fillStyle = '#d0d0d0';
  context.fillRect(420, 236, 80, 30);
  context.fillStyle = '#000000';
  context.fillText(dialog.button ?? 'OK', 446, 258);
  const png = new pngjs.PNG({ width: bitmap.width, height: bitmap.height });
  png.data = Buffer.from(bitmap.data);
  return new Uint8Array(pngjs.PNG.sync.write(png));
}
