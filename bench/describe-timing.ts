/**
 * `npm run bench:describe`: the offline describer's time per photo in Node (CenterNet on
 * onnxruntime-node, tesseract.js for OCR), on the fixture photos and a rendered error dialog. Each
 * picture is described `--runs` times after one warm-up; the table gives medians in ms, and what was
 * seen. Then CenterNet's detection alone, per picture, on three runtimes in turns: TF.js 4.22 WASM
 * (the graph as vmem ran it before; a devDependency), onnxruntime-node and onnxruntime-web's WASM,
 * one thread each. With `--retrieval` it also builds the uncaptioned-photo memory
 * (src/testing/uncaptioned-photos.ts) with and without the describer and prints where each
 * question's photo ranks.
 * @example npm run bench:describe -- --runs 5 --retrieval
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { createCenterNetDetector, createMemory, type ImageDescription, type ObjectDetector } from 'vmem';
import { derivedText } from 'vmem/internal';
import { createNodeEmbeddedEncoders, createNodeImageDescriber, decodeImageNode } from 'vmem/node';
import { createTfjsCenterNetDetector } from '../src/describe/testing/tfjs-centernet.js';
import { renderDialog } from '../src/testing/render-text.js';
import { fixturePhotoNames, readFixturePhoto } from '../src/testing/shared-data.js';
import { PHOTO_QUESTIONS, uncaptionedPhotoScenario } from '../src/testing/uncaptioned-photos.js';

const runsArgument = process.argv.indexOf('--runs');
const runs = runsArgument > 0 ? Number(process.argv[runsArgument + 1]) : 3;
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${process.argv[runsArgument + 1]}`);

const pictures: { name: string; bytes: Uint8Array }[] = [
  ...fixturePhotoNames().map((name) => ({ name, bytes: readFixturePhoto(name) })),
  { name: 'rendered error dialog', bytes: await renderDialog({ title: 'Error', lines: ['Disk quota exceeded while saving', 'report.docx. Free some space and', 'try again.'] }) },
];

const describer = createNodeImageDescriber();
const loadStart = performance.now();
await describer.load();
console.log(`describer ${describer.id}`);
console.log(`models loaded in ${Math.round(performance.now() - loadStart)} ms; ${runs} run(s) per picture after one warm-up; medians in ms\n`);

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const rows: string[][] = [['picture', 'decode', 'detect', 'analyse', 'OCR', 'derived text']];
const detectTimes: number[] = [];
const ocrTimes: number[] = [];
for (const picture of pictures) {
  await describer.describe([{ bytes: picture.bytes }]);
  const timings: ImageDescription['timings'][] = [];
  let last: ImageDescription | undefined;
  for (let run = 0; run < runs; run++) {
    [last] = await describer.describe([{ bytes: picture.bytes }]);
    timings.push(last!.timings);
  }
  const detect = median(timings.map((t) => t.detect));
  const ocr = timings[0]!.ocr === undefined ? undefined : median(timings.map((t) => t.ocr!));
  detectTimes.push(detect);
  if (ocr !== undefined) ocrTimes.push(ocr);
  rows.push([
    picture.name,
    String(Math.round(median(timings.map((t) => t.decode)))),
    String(Math.round(detect)),
    String(Math.round(median(timings.map((t) => t.analyse)))),
    ocr === undefined ? '—' : String(Math.round(ocr)),
    truncate(derivedText(last!), 70),
  ]);
}

printTable(rows, new Set([1, 2, 3, 4]));
console.log(`\ndetection: median ${Math.round(median(detectTimes))} ms per picture over ${detectTimes.length} pictures`);
console.log(`OCR ran on ${ocrTimes.length} of ${pictures.length} pictures${ocrTimes.length ? `: median ${Math.round(median(ocrTimes))} ms` : ''}`);
await describer.dispose();
await runtimeTable();
if (process.argv.includes('--retrieval')) await retrievalTable();

/** CenterNet's detection time per picture on TF.js and on ONNX Runtime, the arms taking turns on each picture. */
async function runtimeTable(): Promise<void> {
  ortWeb.env.wasm.numThreads = 1;
  // The file `npm run convert-models` writes (and the package ships).
  const model = new Uint8Array(readFileSync(new URL('../models/centernet.onnx', import.meta.url)));
  const arms: [string, ObjectDetector & { load(): Promise<void>; dispose(): Promise<void> }][] = [
    ['TF.js 4.22 WASM', createTfjsCenterNetDetector()],
    ['onnxruntime-node', createCenterNetDetector({ runtime: ortNode, model: async () => model, sessionOptions: { intraOpNumThreads: 1 } })],
    ['onnxruntime-web WASM', createCenterNetDetector({ runtime: ortWeb, model: async () => model })],
  ];
  for (const [, detector] of arms) await detector.load();
  const times: number[][] = arms.map(() => []);
  const load = loadavg()[0]!.toFixed(1);
  for (const picture of pictures) {
    const image = await decodeImageNode(picture.bytes);
    for (const [, detector] of arms) await detector.detect(image);
    const perArm: number[][] = arms.map(() => []);
    for (let run = 0; run < runs; run++) {
      for (const [index, [, detector]] of arms.entries()) {
        const start = performance.now();
        await detector.detect(image);
        perArm[index]!.push(performance.now() - start);
      }
    }
    perArm.forEach((values, index) => times[index]!.push(median(values)));
  }
  for (const [, detector] of arms) await detector.dispose();
  const reference = times[0]!;
  console.log(`\nCenterNet detection per picture, ms (median over ${pictures.length} pictures of each picture's median of ${runs}), one thread each, arms in turns; ${cpus().length} cores, load average ${load} → ${loadavg()[0]!.toFixed(1)}`);
  printTable([
    ['runtime', 'median', 'speed-up over TF.js (median of per-picture ratios)'],
    ...arms.map(([name], index) => [name, String(Math.round(median(times[index]!))), (median(reference.map((tfjs, i) => tfjs / times[index]![i]!))).toFixed(2)]),
  ], new Set([1, 2]));
}

/** Rank of each question's photo (1 = first) in the same memory without and with the describer. */
async function retrievalTable(): Promise<void> {
  const { ordinary, photos } = await uncaptionedPhotoScenario();
  const encoders = createNodeEmbeddedEncoders();
  const ranks: (number | undefined)[][] = [];
  for (const withDescriber of [false, true]) {
    const memory = await createMemory({ textEncoder: encoders.text, imageEncoder: encoders.image!, ...(withDescriber ? { describer } : {}) });
    await memory.add(ordinary);
    await memory.add(photos);
    const column: (number | undefined)[] = [];
    for (const [question, photo] of PHOTO_QUESTIONS) {
      const at = (await memory.retrieve(question)).trace.findIndex((entry) => entry.roundId === `photo-${photo}`);
      column.push(at < 0 ? undefined : at + 1);
    }
    ranks.push(column);
    await memory.close();
  }
  await encoders.text.dispose();
  const shown = (rank: number | undefined) => (rank === undefined ? 'not returned' : String(rank));
  const first = (column: readonly (number | undefined)[]) => `${column.filter((rank) => rank === 1).length} of ${column.length} first`;
  console.log(`\nuncaptioned photos under "Look what I saw today!" among ${ordinary.length} LoCoMo rounds: rank of the right photo`);
  printTable([
    ['question', 'without describer', 'with describer'],
    ...PHOTO_QUESTIONS.map(([question], index) => [question, shown(ranks[0]![index]), shown(ranks[1]![index])]),
    ['', first(ranks[0]!), first(ranks[1]!)],
  ]);
}

function truncate(text: string, most: number): string {
  return text.length <= most ? text : `${text.slice(0, most - 1)}…`;
}

/** Prints rows as aligned columns; numbers go right-aligned in `rightAligned` columns. */
function printTable(table: readonly string[][], rightAligned: ReadonlySet<number> = new Set()): void {
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  for (const [index, row] of table.entries()) {
    console.log(row.map((cell, column) => (rightAligned.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  '));
    if (index === 0) console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  }
}
