/**
 * `npm run bench:browser`: serves the built app and drives headless Chromium to measure
 *   - cold start to first retrieval with the models already cached (a second browser start),
 *   - ingest speed with the real encoders (text rounds; photo rounds with `describe: 'wait'` and
 *     `'background'`), each beside the model's own time on the same inputs,
 *   - retrieval p95 without an LLM at 10k and 100k rounds (synthetic rounds, random unit vectors),
 *   - JS heap held by a 10k-round in-memory memory,
 *   - open time of a persisted 5k-round memory, and how it divides (IndexedDB, BM25, the rest),
 *   - persisted 10k- and 100k-round memories: JS heap, IndexedDB size, open time, and the rate of
 *     adding rounds one by one to them against adding to a 1k-round memory,
 *   - int8 against exact float32 dense ranking on the 100k-round memory,
 *   - IndexedDB against OPFS read speed for few large and many small values,
 *   - plain Orama hybrid search on the same data, as the reference,
 *   - the offline describer's time per picture in the worker (detection; OCR when it runs),
 *   - loading the demo's sample conversation, and how often its progress moves,
 *   - bytes on the wire of three first visits (the drop-in example, the demo, the consumer test app)
 *     and of any file downloaded twice.
 * Prints a Markdown table. Options: --quick (1k/10k instead of 10k/100k); --bytes-files (every file
 * of each first visit, with its bytes on the wire);
 * --only=cold,sample,scale,open,memory,storage,describe,bytes to run some of the groups (cold start and
 * ingest; the demo's sample conversation; index scale; persisted 5k open; memory at scale; IndexedDB
 * against OPFS; describer; first-visit bytes); `--only=encryption` (not in the default set) opens the
 * same persisted memory plain and encrypted; `--only=sync` (not in the default set either) syncs a
 * 10k-round memory with 1k photos from Node onto fresh Chromium profiles; --json FILE writes every figure as
 * `{ commit, rows: [{ id, value, unit }] }` (scripts/bench-browser/report.ts).
 * Each group is one module under scripts/bench-browser/.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { preview } from 'vite';
import { CHROMIUM_PATH } from '../playwright.config.js';
import { APP_OUT_DIR } from '../vite.config.js';
import { coldStart } from './bench-browser/cold.js';
import { describerTimes } from './bench-browser/describe.js';
import { firstVisitBytes } from './bench-browser/bytes.js';
import { launch, log, PORT } from './bench-browser/harness.js';
import { memoryAtScale, storageReads } from './bench-browser/memory.js';
import { report } from './bench-browser/report.js';
import { sampleLoad } from './bench-browser/sample.js';
import { indexScale } from './bench-browser/scale.js';
import { encryptionCost } from './bench-browser/encryption.js';
import { freshDeviceSync } from './bench-browser/sync.js';

const root = resolve(import.meta.dirname, '..');
const quick = process.argv.includes('--quick');
const sizes = { small: quick ? 1_000 : 10_000, large: quick ? 10_000 : 100_000 };
const onlyArg = process.argv.find((arg) => arg.startsWith('--only='));
const groups = new Set((onlyArg ? onlyArg.slice('--only='.length) : 'cold,sample,scale,open,memory,storage,describe,bytes').split(','));
const jsonAt = process.argv.indexOf('--json');
const jsonPath = jsonAt >= 0 ? process.argv[jsonAt + 1] : undefined;
if (jsonAt >= 0 && (!jsonPath || jsonPath.startsWith('--'))) {
  console.error('bench:browser: --json needs a file name, e.g. --json bench-browser.json');
  process.exit(2);
}

if (!existsSync(join(root, APP_OUT_DIR, 'bench.html'))) {
  log('no build found; running scripts/build-app.ts…');
  const built = spawnSync('npx', ['tsx', 'scripts/build-app.ts'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
// The consumer app of the bytes group installs the package as `dist/` holds it.
if (groups.has('bytes') && !existsSync(join(root, 'dist/worker/encoder.worker.js'))) {
  log('no package build found; running npm run build:lib…');
  const built = spawnSync('npm', ['run', 'build:lib'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const server = await preview({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn', preview: { port: PORT, strictPort: true } });
const profile = mkdtempSync(join(tmpdir(), 'vmem-bench-'));
try {
  if (groups.has('bytes')) await firstVisitBytes();
  if (groups.has('cold')) await coldStart(profile);
  if (groups.has('sync')) await freshDeviceSync(sizes.small, sizes.small / 10);
  const scaleProfile = join(profile, 'scale');
  const context = await launch(scaleProfile);
  try {
    if (groups.has('sample')) await sampleLoad(context);
    if (groups.has('scale') || groups.has('open')) await indexScale(context, sizes, groups);
    if (groups.has('memory')) await memoryAtScale(context, scaleProfile, sizes);
    if (groups.has('storage')) await storageReads(context);
    if (groups.has('describe')) await describerTimes(context);
    if (groups.has('encryption')) await encryptionCost(context, sizes.small);
  } finally {
    await context.close();
  }
} finally {
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}

const version = spawnSync(CHROMIUM_PATH ?? 'chromium', ['--version'], { encoding: 'utf8' }).stdout.trim();
report(`vmem browser benchmark — headless ${version}, ${cpus().length} cores${quick ? ' (quick mode)' : ''}`, jsonPath);
