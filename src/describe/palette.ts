/**
 * Colour names from pixels, with a fixed palette of twelve names: what people call colours in a
 * question ("the red motorcycle"), not a colour science model. Pure: no DOM, no model.
 */
import type { RgbaImage } from '../encoders/types.js';
import type { Box } from './types.js';

/** The palette. */
export const COLOUR_NAMES = ['black', 'white', 'gray', 'red', 'orange', 'yellow', 'green', 'teal', 'blue', 'purple', 'pink', 'brown'] as const;

export type ColourName = (typeof COLOUR_NAMES)[number];

const ACHROMATIC: ReadonlySet<ColourName> = new Set(['black', 'white', 'gray']);

/**
 * The palette name of one sRGB colour (0–255 channels), from its hue, saturation and value.
 * @example colourName(200, 30, 40) // 'red'
 */
export function colourName(r: number, g: number, b: number): ColourName {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const value = max / 255;
  const saturation = max === 0 ? 0 : (max - min) / max;
  if (value < 0.18) return 'black';
  if (saturation < 0.14 || (value < 0.3 && saturation < 0.3)) {
    if (value > 0.82) return 'white';
    return value < 0.28 ? 'black' : 'gray';
  }
  const hue = hueOf(r, g, b, max, min);
  // Light, weakly saturated reds and magentas read as pink; dark oranges and reds as brown.
  if ((hue < 20 || hue >= 330) && saturation < 0.5 && value > 0.7) return 'pink';
  if (hue >= 8 && hue < 45 && value < 0.62) return 'brown';
  if (hue >= 20 && hue < 45 && saturation < 0.45 && value < 0.8) return 'brown';
  if (hue < 12 || hue >= 345) return 'red';
  if (hue < 40) return 'orange';
  if (hue < 68) return value < 0.5 ? 'brown' : 'yellow';
  if (hue < 160) return 'green';
  if (hue < 195) return 'teal';
  if (hue < 255) return 'blue';
  if (hue < 290) return 'purple';
  return saturation < 0.6 || value > 0.75 ? 'pink' : 'purple';
}

function hueOf(r: number, g: number, b: number, max: number, min: number): number {
  const delta = max - min;
  if (delta === 0) return 0;
  let hue: number;
  if (max === r) hue = ((g - b) / delta) % 6;
  else if (max === g) hue = (b - r) / delta + 2;
  else hue = (r - g) / delta + 4;
  hue *= 60;
  return hue < 0 ? hue + 360 : hue;
}

/** Share of each colour name among sampled pixels (shares sum to 1; names never seen are absent). */
export type ColourShares = ReadonlyMap<ColourName, number>;

/** Pixels sampled per region: enough for stable shares, cheap on a large photo. */
const SAMPLES_PER_SIDE = 64;

/**
 * Colour shares inside `box` (default: the whole image), and optionally outside it, from an even grid
 * of samples.
 */
export function colourShares(image: RgbaImage, box?: Box): { inside: ColourShares; outside: ColourShares } {
  const region = box ?? { x: 0, y: 0, width: image.width, height: image.height };
  const inside = new Map<ColourName, number>();
  const outside = new Map<ColourName, number>();
  const stepX = Math.max(1, image.width / SAMPLES_PER_SIDE);
  const stepY = Math.max(1, image.height / SAMPLES_PER_SIDE);
  // Inside a box, sample it at full density: a small object must not rest on a handful of pixels.
  const inStepX = Math.max(1, region.width / SAMPLES_PER_SIDE);
  const inStepY = Math.max(1, region.height / SAMPLES_PER_SIDE);
  const count = (map: Map<ColourName, number>, x: number, y: number) => {
    const at = (Math.floor(y) * image.width + Math.floor(x)) * 4;
    const name = colourName(image.data[at]!, image.data[at + 1]!, image.data[at + 2]!);
    map.set(name, (map.get(name) ?? 0) + 1);
  };
  for (let y = region.y + inStepY / 2; y < region.y + region.height && y < image.height; y += inStepY) {
    for (let x = region.x + inStepX / 2; x < region.x + region.width && x < image.width; x += inStepX) count(inside, x, y);
  }
  if (box) {
    for (let y = stepY / 2; y < image.height; y += stepY) {
      for (let x = stepX / 2; x < image.width; x += stepX) {
        if (x < box.x || x >= box.x + box.width || y < box.y || y >= box.y + box.height) count(outside, x, y);
      }
    }
  }
  return { inside: toShares(inside), outside: toShares(outside) };
}

function toShares(counts: ReadonlyMap<ColourName, number>): ColourShares {
  let total = 0;
  for (const n of counts.values()) total += n;
  return new Map([...counts].map(([name, n]) => [name, n / total]));
}

/** Least share a colour needs to be named as one of the picture's colours. */
const PICTURE_COLOUR_SHARE = 0.12;

/**
 * The picture's two or three most frequent colour names, most frequent first; a colour is named only
 * when at least 12 % of the picture has it.
 * @example dominantColours(decoded) // ['gray', 'red']
 */
export function dominantColours(image: RgbaImage, most = 3): ColourName[] {
  const { inside } = colourShares(image);
  return [...inside]
    .filter(([, share]) => share >= PICTURE_COLOUR_SHARE)
    .sort((a, b) => b[1] - a[1])
    .slice(0, most)
    .map(([name]) => name);
}

/** Least share of its box a colour needs to be an object's colour. */
const OBJECT_COLOUR_SHARE = 0.1;
/** How much more of a hue the box must have than its surroundings for the hue to name the object. */
const HUE_MARGIN = 0.04;
/** Least part of the picture outside the box for the surroundings to be compared with. */
const SURROUNDINGS_SHARE = 0.1;

/**
 * The colour that marks an object out: the name whose share inside the box most exceeds its share in
 * the rest of the picture. A hue that stands out wins over black, white and grey, as people name a red
 * motorcycle by its paint, not its black tyres and chrome. Undefined when nothing stands out.
 */
export function objectColour(image: RgbaImage, box: Box): ColourName | undefined {
  const { inside, outside } = colourShares(image, box);
  const outsideArea = 1 - (box.width * box.height) / (image.width * image.height);
  const compare = outsideArea >= SURROUNDINGS_SHARE && outside.size > 0;
  let hue: { name: ColourName; score: number } | undefined;
  let plain: { name: ColourName; score: number } | undefined;
  for (const [name, share] of inside) {
    if (share < OBJECT_COLOUR_SHARE) continue;
    const score = compare ? share - (outside.get(name) ?? 0) : share;
    if (ACHROMATIC.has(name)) {
      if (!plain || score > plain.score) plain = { name, score };
    } else if (!hue || score > hue.score) {
      hue = { name, score };
    }
  }
  if (hue && hue.score >= HUE_MARGIN) return hue.name;
  return plain && plain.score > 0 ? plain.name : undefined;
}
