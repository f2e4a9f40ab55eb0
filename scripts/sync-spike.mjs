// The measured spike behind docs/architecture.md's "Sync engine" decision (issue 25); not shipped,
// not run by CI. It needs the three engines, which vmem does not depend on, installed in a scratch
// folder:
//   mkdir /tmp/sync-spike && cd /tmp/sync-spike && npm init -y && npm install pouchdb-core@9.0.0 \
//     pouchdb-adapter-memory@9.0.0 pouchdb-adapter-http@9.0.0 pouchdb-replication@9.0.0 pouchdb-adapter-idb@9.0.0 \
//     express-pouchdb@4.2.0 express@4.21.2 @automerge/automerge-repo@2.5.6 \
//     @automerge/automerge-repo-network-websocket@2.5.6 yjs@13.6.33 @y/websocket-server@0.1.1 y-websocket@3.0.0 esbuild ws
//   node scripts/sync-spike.mjs --deps /tmp/sync-spike --engine pouchdb|automerge|yjs|bundle --rounds 2000 --photo-every 10
// Each engine runs in its own process (one --engine per run) so memory figures do not mix.
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) => (arg.startsWith('--') ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []));
const deps = args.deps ?? '/tmp/sync-spike';
const rounds = Number(args.rounds ?? 2000);
const photoEvery = Number(args['photo-every'] ?? 10);
const photoBytes = Number(args['photo-bytes'] ?? 30_000);
const require = createRequire(join(deps, 'package.json'));
const load = async (name) => {
  const mod = await import(pathToFileURL(require.resolve(name)).href);
  return mod.default ?? mod;
};

function roundOf(i) {
  const photo = i % photoEvery === 0 ? crypto.getRandomValues(new Uint8Array(photoBytes).subarray(0, 65536)) : undefined;
  if (photo && photoBytes > 65536) throw new Error('photo-bytes ≤ 65536');
  return { id: `round-${i}`, text: `user said ${i} things about the weather and the cat, assistant answered at length ${'x'.repeat(200)}`, timestamp: 1_700_000_000_000 + i, photo };
}

const mb = (bytes) => Math.round(bytes / 1e5) / 10;
let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
const report = (engine, figures) => {
  clearInterval(sampler);
  console.log(JSON.stringify({ engine, rounds, photos: Math.ceil(rounds / photoEvery), photoBytes, peakRssMB: mb(peakRss), ...figures }));
  process.exit(0);
};

async function pouchdb() {
  const PouchDB = (await load('pouchdb-core')).plugin(await load('pouchdb-adapter-memory')).plugin(await load('pouchdb-adapter-http')).plugin(await load('pouchdb-replication'));
  const express = await load('express');
  const ServerPouch = PouchDB.defaults({ adapter: 'memory' });
  const app = express();
  app.use('/', (await load('express-pouchdb'))(ServerPouch, { mode: 'minimumForPouchDB', inMemoryConfig: true, logPath: join(mkdtempSync(join(tmpdir(), 'spike-')), 'log.txt') }));
  const server = app.listen(5480);
  const a = new PouchDB('a', { adapter: 'memory' });
  const docs = Array.from({ length: rounds }, (_, i) => {
    const round = roundOf(i);
    return { _id: round.id, text: round.text, timestamp: round.timestamp, ...(round.photo ? { _attachments: { photo: { content_type: 'image/jpeg', data: Buffer.from(round.photo).toString('base64') } } } : {}) };
  });
  for (let i = 0; i < docs.length; i += 500) await a.bulkDocs(docs.slice(i, i + 500));
  let start = performance.now();
  await a.replicate.to('http://127.0.0.1:5480/db', { batch_size: 200 });
  const push = performance.now() - start;
  const b = new PouchDB('b', { adapter: 'memory' });
  const heapBefore = process.memoryUsage().heapUsed;
  start = performance.now();
  await b.replicate.from('http://127.0.0.1:5480/db', { batch_size: 200 });
  const pull = performance.now() - start;
  const info = await b.info();
  // Deletes: a tombstone per document travels; attachments go with the deleted revision.
  const some = (await a.allDocs({ limit: 100 })).rows;
  await a.bulkDocs(some.map((row) => ({ _id: row.id, _rev: row.value.rev, _deleted: true })));
  start = performance.now();
  await a.replicate.to('http://127.0.0.1:5480/db');
  await b.replicate.from('http://127.0.0.1:5480/db');
  const deleteSync = performance.now() - start;
  const after = await b.info();
  server.close();
  report('pouchdb', { pushMs: Math.round(push), freshPullMs: Math.round(pull), docsOnFresh: info.doc_count, heapGrowthPullMB: mb(process.memoryUsage().heapUsed - heapBefore), delete100Ms: Math.round(deleteSync), docsAfterDelete: after.doc_count });
}

async function automerge() {
  const { Repo } = await import(pathToFileURL(require.resolve('@automerge/automerge-repo')).href);
  const net = await import(pathToFileURL(require.resolve('@automerge/automerge-repo-network-websocket')).href);
  const Automerge = await import(pathToFileURL(require.resolve('@automerge/automerge')).href);
  const { WebSocketServer } = require('ws');
  const wss = new WebSocketServer({ port: 5481 });
  const serverRepo = new Repo({ network: [new net.WebSocketServerAdapter(wss)], peerId: 'server', sharePolicy: async () => false });
  const a = new Repo({ network: [new net.WebSocketClientAdapter('ws://127.0.0.1:5481')], peerId: 'a' });
  // One document for the whole memory: one document per round would mean a sync handshake per round.
  const handle = a.create({ rounds: {} });
  for (let i = 0; i < rounds; i += 500) {
    handle.change((doc) => {
      for (let j = i; j < Math.min(rounds, i + 500); j++) {
        const round = roundOf(j);
        doc.rounds[round.id] = { text: round.text, timestamp: round.timestamp, ...(round.photo ? { photo: round.photo } : {}) };
      }
    });
  }
  let start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 100));
  // Wait until the server holds every round.
  for (;;) {
    const held = serverRepo.handles[handle.documentId];
    const doc = held?.isReady() ? held.doc() : undefined;
    if (doc && Object.keys(doc.rounds ?? {}).length === rounds) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const push = performance.now() - start;
  const b = new Repo({ network: [new net.WebSocketClientAdapter('ws://127.0.0.1:5481')], peerId: 'b' });
  const heapBefore = process.memoryUsage().heapUsed;
  start = performance.now();
  // The server only answers requests (sharePolicy false), so b asks for the document.
  serverRepo.sharePolicy = async () => true;
  const fresh = await b.find(handle.documentId);
  for (;;) {
    if (Object.keys(fresh.doc().rounds ?? {}).length === rounds) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const pull = performance.now() - start;
  const savedBefore = Automerge.save(handle.doc()).byteLength;
  handle.change((doc) => {
    for (const id of Object.keys(doc.rounds)) if (doc.rounds[id].photo) delete doc.rounds[id];
  });
  const savedAfter = Automerge.save(handle.doc()).byteLength;
  report('automerge', { pushMs: Math.round(push), freshPullMs: Math.round(pull), heapGrowthPullMB: mb(process.memoryUsage().heapUsed - heapBefore), savedMB: mb(savedBefore), savedAfterDeletingEveryPhotoRoundMB: mb(savedAfter) });
}

async function yjs() {
  const Y = await import(pathToFileURL(require.resolve('yjs')).href);
  const { WebSocketServer, WebSocket } = require('ws');
  const utils = await import(pathToFileURL(join(deps, 'node_modules/@y/websocket-server/src/utils.js')).href);
  const { WebsocketProvider } = await import(pathToFileURL(require.resolve('y-websocket')).href);
  const wss = new WebSocketServer({ port: 5482 });
  wss.on('connection', (conn, req) => utils.setupWSConnection(conn, req));
  const a = new Y.Doc();
  const map = a.getMap('rounds');
  for (let i = 0; i < rounds; i += 500) {
    a.transact(() => {
      for (let j = i; j < Math.min(rounds, i + 500); j++) {
        const round = roundOf(j);
        map.set(round.id, { text: round.text, timestamp: round.timestamp, ...(round.photo ? { photo: round.photo } : {}) });
      }
    });
  }
  let start = performance.now();
  const pa = new WebsocketProvider('ws://127.0.0.1:5482', 'memory', a, { WebSocketPolyfill: WebSocket });
  await new Promise((resolve) => pa.on('sync', (synced) => synced && resolve()));
  for (;;) {
    const held = utils.docs.get('memory');
    if (held && held.getMap('rounds').size === rounds) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const push = performance.now() - start;
  const b = new Y.Doc();
  const heapBefore = process.memoryUsage().heapUsed;
  start = performance.now();
  const pb = new WebsocketProvider('ws://127.0.0.1:5482', 'memory', b, { WebSocketPolyfill: WebSocket });
  for (;;) {
    if (b.getMap('rounds').size === rounds) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const pull = performance.now() - start;
  const before = Y.encodeStateAsUpdate(a).byteLength;
  a.transact(() => {
    for (const [id, value] of map) if (value.photo) map.delete(id);
  });
  const after = Y.encodeStateAsUpdate(a).byteLength;
  pa.destroy();
  pb.destroy();
  report('yjs', { pushMs: Math.round(push), freshPullMs: Math.round(pull), heapGrowthPullMB: mb(process.memoryUsage().heapUsed - heapBefore), stateMB: mb(before), stateAfterDeletingEveryPhotoRoundMB: mb(after) });
}

async function bundle() {
  const esbuild = await load('esbuild');
  const entries = {
    pouchdb: "import P from 'pouchdb-core'; import idb from 'pouchdb-adapter-idb'; import http from 'pouchdb-adapter-http'; import r from 'pouchdb-replication'; export default P.plugin(idb).plugin(http).plugin(r);",
    automerge: "export { Repo } from '@automerge/automerge-repo'; export { BrowserWebSocketClientAdapter } from '@automerge/automerge-repo-network-websocket';",
    yjs: "export * as Y from 'yjs'; export { WebsocketProvider } from 'y-websocket';",
  };
  const sizes = {};
  for (const [name, contents] of Object.entries(entries)) {
    const outdir = mkdtempSync(join(tmpdir(), `bundle-${name}-`));
    await esbuild.build({ stdin: { contents, resolveDir: deps, loader: 'js' }, bundle: true, minify: true, format: 'esm', platform: 'browser', outdir, loader: { '.wasm': 'file' }, logLevel: 'error', define: { global: 'globalThis' } });
    let raw = 0;
    let gz = 0;
    for (const file of readdirSync(outdir)) {
      const bytes = readFileSync(join(outdir, file));
      raw += statSync(join(outdir, file)).size;
      gz += gzipSync(bytes).byteLength;
    }
    sizes[name] = { minifiedKB: Math.round(raw / 1024), gzipKB: Math.round(gz / 1024) };
  }
  writeFileSync(join(tmpdir(), 'sync-spike-bundle.json'), JSON.stringify(sizes));
  report('bundle', sizes);
}

await { pouchdb, automerge, yjs, bundle }[args.engine ?? 'bundle']();
