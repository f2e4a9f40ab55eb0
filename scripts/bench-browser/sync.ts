/**
 * Sync onto a fresh browser device: a Node memory holding ROUNDS rounds (PHOTOS with a photo of
 * their own) pushes them to express-pouchdb on loopback (started here), then a Chromium profile with
 * an empty memory and the same encoders syncs once, plain and with a sync passphrase, each in a new
 * profile. Timed from `memory.sync` to `done`; it must hold every round and photo and have encoded
 * none (`syncState().reencoded`). bench/sync.ts measures the same between two Node devices.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemory } from '../../src/index.js';
import { readFixturePhoto } from '../../src/testing/shared-data.js';
import { syncBenchPhotoCount, syncBenchRounds } from '../../src/testing/sync-rounds.js';
import { syntheticImageEncoder, syntheticTextEncoder } from '../../src/testing/synthetic-rounds.js';
import { startTestSyncServer } from '../../src/sync/testing/server.js';
import { benchPage, launch, log, sizeId } from './harness.js';
import { push, record } from './report.js';

/** Apart from bench/sync.ts's 5485 and the tests' servers. */
const SYNC_BENCH_PORT = Number(process.env.VMEM_BENCH_SYNC_PORT ?? 5487);
const PASSPHRASE = 'bench sync passphrase';

export async function freshDeviceSync(rounds: number, photos: number): Promise<void> {
  const server = await startTestSyncServer(SYNC_BENCH_PORT);
  try {
    log(`sync: a Node memory of ${rounds} rounds and ${photos} photos pushes to the server…`);
    const source = await createMemory({ textEncoder: syntheticTextEncoder(512), imageEncoder: syntheticImageEncoder(1280) });
    const inputs = syncBenchRounds(rounds, photos, readFixturePhoto('sk_coffee.jpg'));
    for (let start = 0; start < inputs.length; start += 1000) await source.add(inputs.slice(start, start + 1000));
    for (const sealed of [false, true]) {
      const url = server.url(`bench-browser-${sealed ? 'sealed' : 'plain'}`);
      await source.sync({ url, ...(sealed ? { passphrase: PASSPHRASE } : {}) }).done;
      log(`sync: a fresh Chromium profile pulls them${sealed ? ', sealed' : ''}…`);
      const profile = mkdtempSync(join(tmpdir(), 'vmem-bench-sync-'));
      const context = await launch(profile);
      try {
        const page = await benchPage(context);
        const fresh = await page.evaluate(([at, passphrase]) => window.__bench!.syncFresh(at, passphrase), [url, sealed ? PASSPHRASE : undefined] as const);
        const expectedPhotos = syncBenchPhotoCount(rounds, photos);
        if (fresh.size !== rounds || fresh.photos !== expectedPhotos) throw new Error(`the fresh device holds ${fresh.size} of ${rounds} rounds and ${fresh.photos} of ${expectedPhotos} photos`);
        const id = `sync.browser.${sealed ? 'sealed' : 'plain'}.${sizeId(rounds)}`;
        record(`${id}.converge`, fresh.syncMs, 'ms');
        record(`${id}.reencoded`, fresh.reencoded, 'rounds');
        push({
          measure: `sync onto a fresh browser device, ${rounds.toLocaleString('en')} rounds with ${expectedPhotos.toLocaleString('en')} photos${sealed ? ', sealed (sync passphrase)' : ''}`,
          value: `${(fresh.syncMs / 1000).toFixed(1)} s`,
          target: '≤ 60 s',
          note: `${fresh.pulled} rounds pulled, ${fresh.reencoded} encoded again (vectors travel); IndexedDB replica and memory`,
        });
      } finally {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      }
    }
    await source.close();
  } finally {
    await server.stop();
  }
}
