/**
 * `npx tsx scripts/bench-file-store.ts [--rounds N] [--batch N] [--dir PATH] [--keep] [--json FILE]`:
 * a memory of N synthetic rounds (default 1,000,000) in the Node file store (`createFileStorage`):
 * writing it in adds of `--batch` rounds (default 10,000), the folder's size, reopening it until the
 * first retrieval, the process's memory once open, retrieval latency, and adding rounds one by one.
 * Synthetic encoders (random unit vectors, 512-d text and 1280-d caption units), so this measures
 * storage and the index, not a model. Prints a Markdown table; `--json` writes the figures as
 * bench:browser does (`{ commit, rows: [{ id, value, unit }] }`). When something stops it (memory,
 * disk), it says what and where.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createMemory, type Memory } from 'vmem';
import { createFileStorage } from 'vmem/node';
import { randomSentence, seededRandom, syntheticImageEncoder, syntheticRounds, syntheticTextEncoder } from '../src/testing/synthetic-rounds.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string' }, batch: { type: 'string' }, dir: { type: 'string' }, keep: { type: 'boolean' }, json: { type: 'string' } },
});
const ROUNDS = Number(values.rounds ?? 1_000_000);
const BATCH = Number(values.batch ?? 10_000);
const ADDED = 100;
const QUERIES = 53;
const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'vmem-file-bench-'));
const encoders = { textEncoder: syntheticTextEncoder(512), imageEncoder: syntheticImageEncoder(1280) };
const label = ROUNDS.toLocaleString('en');
const sizeId = ROUNDS % 1_000_000 === 0 ? `${ROUNDS / 1_000_000}m` : ROUNDS % 1000 === 0 ? `${ROUNDS / 1000}k` : String(ROUNDS);

const rows: { measure: string; value: string; note: string }[] = [];
const figures: { id: string; value: number; unit: string }[] = [];
const log = (text: string) => console.error(`bench-file-store: ${text}`);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
function row(measure: string, value: string, note: string, figure?: { id: string; value: number; unit: string }) {
  rows.push({ measure, value, note });
  if (figure) figures.push(figure);
  log(`${measure}: ${value} (${note})`);
}

function folderBytes(path: string): number {
  return readdirSync(path, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
}

function percentile(times: readonly number[], q: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

const memoryNote = () => {
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed, external: usage.external + usage.arrayBuffers };
};

let stage = 'writing';
try {
  log(`writing ${label} rounds to ${dir} in adds of ${BATCH.toLocaleString('en')}…`);
  let memory: Memory = await createMemory({ ...encoders, storage: await createFileStorage(dir) });
  const started = performance.now();
  for (let first = 0; first < ROUNDS; first += BATCH) {
    await memory.add(syntheticRounds(Math.min(BATCH, ROUNDS - first), first));
    if ((first / BATCH) % 10 === 9) log(`  ${(first + BATCH).toLocaleString('en')} rounds, ${seconds(performance.now() - started)}, rss ${mb(process.memoryUsage().rss)}`);
  }
  const written = performance.now() - started;
  stage = 'closing (the background merge finishes)';
  await memory.close();
  const closed = performance.now() - started;
  row(`write ${label} rounds (adds of ${BATCH.toLocaleString('en')})`, seconds(written), `${((ROUNDS / written) * 1000).toFixed(0)} rounds/s; closing, which lets the last merge finish, took ${seconds(closed - written)} more`, { id: `write.${sizeId}`, value: (ROUNDS / written) * 1000, unit: 'rounds/s' });
  const logBytes = statSync(join(dir, 'rounds.log')).size;
  const segments = readdirSync(join(dir, 'segments'));
  row('folder size', mb(folderBytes(dir)), `rounds.log ${mb(logBytes)}, ${segments.length} segments ${mb(folderBytes(join(dir, 'segments')))}`, { id: `disk.${sizeId}`, value: folderBytes(dir) / 1e6, unit: 'MB' });

  stage = 'reopening';
  const before = memoryNote();
  const opening = performance.now();
  memory = await createMemory({ ...encoders, storage: await createFileStorage(dir), retrieval: { llmAnchors: false } });
  const opened = performance.now() - opening;
  const random = seededRandom(99);
  const questions = Array.from({ length: QUERIES }, () => randomSentence(random, 6));
  await memory.retrieve(questions[0]!);
  const firstRetrieval = performance.now() - opening;
  const open = memoryNote();
  row(`open the ${label}-round folder, until open returns`, seconds(opened), `${memory.size.toLocaleString('en')} rounds`, { id: `open.${sizeId}`, value: opened, unit: 'ms' });
  row(`  until its first retrieval is done`, seconds(firstRetrieval), '', { id: `open.${sizeId}.firstRetrieval`, value: firstRetrieval, unit: 'ms' });
  row(
    '  process memory once open',
    mb(open.rss - before.rss),
    `resident growth; V8 heap ${mb(open.heap)}, ArrayBuffers and WebAssembly ${mb(open.external)} (the int8 vectors)`,
    { id: `rss.${sizeId}`, value: (open.rss - before.rss) / 1e6, unit: 'MB' },
  );

  stage = 'retrieving';
  const times: number[] = [];
  for (const question of questions.slice(1)) {
    const at = performance.now();
    await memory.retrieve(question);
    times.push(performance.now() - at);
  }
  row(`retrieval p95, ${label} rounds`, `${percentile(times, 0.95).toFixed(0)} ms`, `p50 ${percentile(times, 0.5).toFixed(0)} ms over ${times.length} queries`, { id: `p95.${sizeId}`, value: percentile(times, 0.95), unit: 'ms' });

  stage = 'adding';
  const adds = syntheticRounds(ADDED, ROUNDS, 31).map((round) => ({ ...round, id: `added-${round.id}`, user: { text: round.user.text } }));
  const adding = performance.now();
  for (const round of adds) await memory.add(round);
  const addMs = performance.now() - adding;
  row(`add ${ADDED} text rounds one by one`, `${((ADDED / addMs) * 1000).toFixed(0)} rounds/s`, `${seconds(addMs)}; each add is one fsynced log frame and one small segment file`, { id: `add.${sizeId}`, value: (ADDED / addMs) * 1000, unit: 'rounds/s' });
  await memory.close();
} catch (error) {
  row(`stopped while ${stage}`, 'failed', `${error instanceof Error ? error.message : String(error)}; process memory ${mb(process.memoryUsage().rss)} resident`);
  process.exitCode = 1;
} finally {
  if (!values.keep && !values.dir) rmSync(dir, { recursive: true, force: true });
}

console.log(`\nvmem file store at ${label} rounds — Node ${process.version}, ${cpus().length} cores\n`);
console.log('| measure | result | note |\n| --- | --- | --- |');
for (const { measure, value, note } of rows) console.log(`| ${measure} | ${value} | ${note} |`);
if (values.json) {
  const commit = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim() || 'unknown';
  writeFileSync(values.json, `${JSON.stringify({ commit, rows: figures }, null, 2)}\n`);
}
