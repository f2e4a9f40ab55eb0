/**
 * `npm run bench:sync`: the sync figures of issue 25, from one run.
 *   - convergence: device A adds ROUNDS rounds (PHOTOS of them with a distinct photo), syncs to an
 *     express-pouchdb server on loopback (started here), and a fresh device B syncs them all:
 *     seconds, and how many rounds B had to encode (0 when its encoders match);
 *   - the property (src/sync/testing/replicas-property.ts) over RUNS random three-device scenarios.
 * Options: --rounds 10000 --photos 1000 --runs 100 --seed 25 --port 5485 --passphrase (seal everything)
 * --json FILE (writes { commit, rows: [{ id, value, unit }] }).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createMemory } from 'vmem';
import { createHashTextEncoder } from '../src/testing/hash-encoder.js';
import { readFixturePhoto } from '../src/testing/shared-data.js';
import { syncBenchPhotoCount, syncBenchRounds } from '../src/testing/sync-rounds.js';
import { checkSyncProperty } from '../src/sync/testing/replicas-property.js';
import { startTestSyncServer } from '../src/sync/testing/server.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const ROUNDS = option('rounds', 10_000);
const PHOTOS = option('photos', 1_000);
const RUNS = option('runs', 100);
const SEED = option('seed', 25);
const passphrase = args.includes('--passphrase') ? 'bench sync passphrase' : undefined;
const jsonAt = args.indexOf('--json');
const jsonFile = jsonAt >= 0 ? args[jsonAt + 1] : undefined;

const rounds = syncBenchRounds(ROUNDS, PHOTOS, readFixturePhoto('sk_coffee.jpg'));

const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim() || 'unknown';
const rows: { id: string; value: number; unit: string }[] = [];
const server = await startTestSyncServer(option('port', 5485));
try {
  const url = server.url(`bench-${Date.now()}`);
  const a = await createMemory({ textEncoder: createHashTextEncoder() });
  for (let start = 0; start < rounds.length; start += 1000) await a.add(rounds.slice(start, start + 1000));
  let started = performance.now();
  await a.sync({ url, ...(passphrase ? { passphrase } : {}) }).done;
  const push = (performance.now() - started) / 1000;
  const encoderB = createHashTextEncoder();
  const b = await createMemory({ textEncoder: encoderB });
  started = performance.now();
  await b.sync({ url, ...(passphrase ? { passphrase } : {}) }).done;
  const converge = (performance.now() - started) / 1000;
  const heldPhotos = (await b.rounds()).filter((round) => round.user.images.length > 0).length;
  if (b.size !== ROUNDS || heldPhotos !== syncBenchPhotoCount(ROUNDS, PHOTOS)) throw new Error(`device B holds ${b.size} rounds and ${heldPhotos} photos`);
  rows.push(
    { id: `sync.push.${ROUNDS}`, value: round2(push), unit: 's' },
    { id: `sync.converge.${ROUNDS}`, value: round2(converge), unit: 's' },
    { id: `sync.reencoded.${ROUNDS}`, value: b.syncState().reencoded, unit: 'rounds' },
    { id: `sync.encoderCalls.${ROUNDS}`, value: encoderB.calls, unit: 'calls' },
  );
  await Promise.all([a.close(), b.close()]);
  if (RUNS > 0) {
    const ms = await checkSyncProperty(server, { runs: RUNS, seed: SEED, maxOps: 24 });
    rows.push({ id: 'sync.property.runs', value: RUNS, unit: 'runs' }, { id: 'sync.property.time', value: round2(ms / 1000), unit: 's' });
  }
} finally {
  await server.stop();
}

console.log(`sync bench at ${commit}: ${ROUNDS} rounds, ${PHOTOS} photos${passphrase ? ', sealed' : ''}`);
console.log('| measure | value |\n|---|---|');
for (const row of rows) console.log(`| ${row.id} | ${row.value} ${row.unit} |`);
if (jsonFile) writeFileSync(jsonFile, JSON.stringify({ commit, rows }, null, 2));

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
