import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSyncProperty } from './testing/replicas-property.js';
import { startTestSyncServer, type TestSyncServer } from './testing/server.js';

let server: TestSyncServer;
beforeAll(async () => {
  server = await startTestSyncServer(5484);
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

// The short, seeded version; `npm run bench:sync` runs 100.
describe('sync property', () => {
  it('three devices with random adds, updates, forgets, disconnects and restarts end with the same rounds', async () => {
    expect(await checkSyncProperty(server, { runs: 6, seed: 25, maxOps: 14 })).toBeGreaterThan(0);
  }, 120_000);
});
