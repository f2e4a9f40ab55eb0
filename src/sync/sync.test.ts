import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type Memory, type RoundInput } from 'vmem';
import { createFileStorage } from 'vmem/node';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { readFixturePhoto } from '../testing/shared-data.js';
import { startTestSyncServer, type TestSyncServer } from './testing/server.js';

const PHOTO = readFixturePhoto('sk_coffee.jpg');
let server: TestSyncServer;
let dbs = 0;
const freshDb = () => server.url(`memory-${++dbs}`);

beforeAll(async () => {
  server = await startTestSyncServer(5481);
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

function device(id = 'hash-bow-64') {
  const textEncoder = createHashTextEncoder({ id });
  return { textEncoder, open: (storage?: Parameters<typeof createMemory>[0]['storage']) => createMemory({ textEncoder, ...(storage ? { storage } : {}) }) };
}

const round = (i: number, extra: Partial<RoundInput> = {}): RoundInput => ({
  id: `round-${i}`,
  timestamp: 1_700_000_000_000 + i * 60_000,
  user: { text: `question ${i} about the zebra${i} garden`, ...(i % 3 === 0 ? { images: [{ bytes: PHOTO, mimeType: 'image/jpeg' }] } : {}) },
  assistant: { text: `answer ${i} with the word walrus${i}` },
  ...extra,
});

async function ids(memory: Memory): Promise<string[]> {
  return (await memory.rounds()).map((r) => r.id).sort();
}

describe('memory.sync', () => {
  it('a fresh device converges with every round and photo, re-encoding nothing when its encoders match', async () => {
    const url = freshDb();
    const a = await device().open();
    await a.add(Array.from({ length: 30 }, (_, i) => round(i)));
    const progress: number[] = [];
    await a.sync({ url, onProgress: (event) => event.status === 'progress' && progress.push(event.loaded) }).done;
    expect(a.syncState()).toMatchObject({ status: 'idle', pushed: 30 });
    expect(progress).toEqual([...progress].sort((x, y) => x - y));

    const fresh = device();
    const b = await fresh.open();
    await b.sync({ url }).done;
    expect(await ids(b)).toEqual(await ids(a));
    expect(b.syncState()).toMatchObject({ pulled: 30, reencoded: 0 });
    expect(fresh.textEncoder.calls).toBe(0);
    const [remembered] = (await b.get('round-3'))!.user.images;
    expect((await b.getImage(remembered!.id))!.bytes).toEqual(PHOTO);
    const top = async (m: Memory) => (await m.retrieve('zebra7 garden')).trace.slice(0, 10).map((entry) => entry.roundId);
    expect(await top(b)).toEqual(await top(a));

    // Other encoders: the vectors are not reused, the round is encoded here.
    const other = device('hash-bow-64-other');
    const c = await other.open();
    await c.sync({ url }).done;
    expect(c.syncState()).toMatchObject({ pulled: 30, reencoded: 30 });
    await Promise.all([a.close(), b.close(), c.close()]);
  }, 60_000);

  it('takes the vectors of a round written by the first release of sync, where they were an attachment', async () => {
    const url = freshDb();
    const a = await device().open();
    await a.add([round(1), round(3)]);
    await a.sync({ url }).done;
    // Rewrite each round as that release wrote it: the units under the attachment their `units` names.
    const { rows } = (await (await fetch(`${url}/_all_docs?include_docs=true`)).json()) as { rows: { id: string; doc: Record<string, unknown> & { _attachments?: Record<string, unknown> } }[] };
    const rewritten = rows.filter((row) => row.id.startsWith('r-')).map(({ doc }) => {
      const { u, ...rest } = doc;
      const units = (JSON.parse(doc.p as string) as { units: string }).units;
      return { ...rest, _attachments: { ...rest._attachments, [units]: { content_type: 'application/octet-stream', data: u } } };
    });
    expect(rewritten).toHaveLength(2);
    const put = await fetch(`${url}/_bulk_docs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ docs: rewritten }) });
    expect(put.ok).toBe(true);

    const fresh = device();
    const b = await fresh.open();
    await b.sync({ url }).done;
    expect(await ids(b)).toEqual(['round-1', 'round-3']);
    expect(b.syncState()).toMatchObject({ pulled: 2, reencoded: 0 });
    expect(fresh.textEncoder.calls).toBe(0);
    await Promise.all([a.close(), b.close()]);
  });

  it('forget travels as a deletion and an old replica does not bring the round back', async () => {
    const url = freshDb();
    const a = await device().open();
    const b = await device().open();
    await a.add([round(1), round(2), round(3)]);
    await a.sync({ url }).done;
    await b.sync({ url }).done;
    await a.forget('round-3');
    await a.sync({ url }).done;
    // b still holds round-3 and syncs as an old replica would: it loses it, and a does not get it back.
    await b.sync({ url }).done;
    await a.sync({ url }).done;
    expect(await ids(a)).toEqual(['round-1', 'round-2']);
    expect(await ids(b)).toEqual(['round-1', 'round-2']);
    expect(b.syncState().forgotten).toBe(1);
    // b edited round-2 while a forgot it: the forget wins.
    await b.update('round-2', { user: { text: 'edited while offline' } });
    await a.forget('round-2');
    await a.sync({ url }).done;
    await b.sync({ url }).done;
    await a.sync({ url }).done;
    expect(await ids(a)).toEqual(['round-1']);
    expect(await ids(b)).toEqual(['round-1']);
    await Promise.all([a.close(), b.close()]);
  }, 60_000);

  it('concurrent updates: the later edit wins on both devices', async () => {
    const url = freshDb();
    const a = await device().open();
    const b = await device().open();
    await a.add([round(1)]);
    await a.sync({ url }).done;
    await b.sync({ url }).done;
    await a.update('round-1', { user: { text: 'first edit on a' } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await b.update('round-1', { user: { text: 'later edit on b' } });
    await a.sync({ url }).done;
    await b.sync({ url }).done;
    await a.sync({ url }).done;
    expect((await a.get('round-1'))!.user.text).toBe('later edit on b');
    expect((await b.get('round-1'))!.user.text).toBe('later edit on b');
    expect(b.syncState().conflicts + a.syncState().conflicts).toBeGreaterThan(0);
    // The losing edit is kept in the history of the round's document on the server.
    const { rows } = (await (await fetch(`${url}/_all_docs?include_docs=true`)).json()) as { rows: { doc: { p?: string } }[] };
    const payload = rows.flatMap((row) => (row.doc.p ? [JSON.parse(row.doc.p) as { round: { id: string }; history: { round: { user: { text: string } } }[] }] : [])).find((entry) => entry.round.id === 'round-1')!;
    expect(payload.history.map((entry) => entry.round.user.text)).toContain('first edit on a');
    await Promise.all([a.close(), b.close()]);
  }, 60_000);
});

describe('memory.sync errors', () => {
  it('an unreachable server gives SYNC_UNREACHABLE', async () => {
    const a = await device().open();
    await a.add([round(1)]);
    await expect(a.sync({ url: 'http://127.0.0.1:5489/nothing' }).done).rejects.toMatchObject({ code: 'SYNC_UNREACHABLE' });
    expect(a.syncState()).toMatchObject({ status: 'failed', error: { code: 'SYNC_UNREACHABLE' } });
    await a.close();
  });

  it('a server that refuses the credentials gives SYNC_UNAUTHORIZED', async () => {
    const seen: (string | undefined)[] = [];
    const refusing = createServer((request, response) => {
      seen.push(String(request.headers['x-vmem-test']));
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'unauthorized', reason: 'Name or password is incorrect.' }));
    });
    await new Promise<void>((resolve) => refusing.listen(5486, '127.0.0.1', resolve));
    const a = await device().open();
    await a.add([round(1)]);
    await expect(a.sync({ url: 'http://someone:wrong@127.0.0.1:5486/memory' }).done).rejects.toMatchObject({ code: 'SYNC_UNAUTHORIZED' });
    expect(a.syncState().error?.message).not.toContain('wrong');
    await expect(a.sync({ url: 'http://127.0.0.1:5486/memory', headers: { 'x-vmem-test': 'sent' } }).done).rejects.toMatchObject({ code: 'SYNC_UNAUTHORIZED' });
    expect(seen).toContain('sent');
    await a.close();
    await new Promise((resolve) => refusing.close(resolve));
  });

  it('a database sealed otherwise than asked gives SYNC_CONFLICT, both ways', async () => {
    const plainUrl = freshDb();
    const a = await device().open();
    await a.add([round(1)]);
    await a.sync({ url: plainUrl }).done;
    const b = await device().open();
    await expect(b.sync({ url: plainUrl, passphrase: 'a sync passphrase' }).done).rejects.toMatchObject({ code: 'SYNC_CONFLICT' });
    const sealedUrl = freshDb();
    await b.sync({ url: sealedUrl, passphrase: 'a sync passphrase' }).done;
    await expect(a.sync({ url: sealedUrl }).done).rejects.toMatchObject({ code: 'SYNC_CONFLICT' });
    await Promise.all([a.close(), b.close()]);
  }, 30_000);

  it('a second sync of the same memory and database while one runs is refused', async () => {
    const a = await device().open();
    const url = freshDb();
    const first = a.sync({ url, live: true });
    await expect(a.sync({ url }).done).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    first.cancel();
    await first.done;
    await a.close();
  });

  it('a locked memory refuses to sync without a sync passphrase', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vmem-sync-locked-'));
    const a = await device().open(await createFileStorage(dir, { encryption: { passphrase: 'correct horse' } }));
    await a.add([round(1)]);
    await expect(a.sync({ url: freshDb() }).done).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await a.close();
    await rm(dir, { recursive: true, force: true });
  });
});

describe('live sync', () => {
  it('carries a round added on one device to another while both stay live; pause holds it back, resume and cancel work', async () => {
    const url = freshDb();
    const a = await device().open();
    const b = await device().open();
    const liveA = a.sync({ url, live: true });
    const liveB = b.sync({ url, live: true });
    const until = async (check: () => boolean) => {
      for (let waited = 0; !check(); waited += 50) {
        if (waited > 15_000) throw new Error('timed out');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await a.add([round(1)]);
    await until(() => b.has('round-1'));
    liveB.pause();
    await until(() => b.syncState().status === 'paused');
    await a.add([round(2)]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(b.has('round-2')).toBe(false);
    liveB.resume();
    await until(() => b.has('round-2'));
    await b.forget('round-1');
    await until(() => !a.has('round-1'));
    liveA.cancel();
    liveB.cancel();
    await Promise.all([liveA.done, liveB.done]);
    expect(a.syncState().status).toBe('idle');
    await Promise.all([a.close(), b.close()]);
  }, 60_000);
});
