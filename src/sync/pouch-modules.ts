/**
 * Where PouchDB's modules come from: the optional peers, imported on the first `memory.sync`. The
 * drop-in script swaps this module for app/dropin-pouch-modules.ts (scripts/build-app.ts), which
 * fetches them from its own folder instead. webpack is told to leave these imports alone: it fails
 * a build on an import it cannot resolve, and an app that never syncs has no PouchDB installed
 * (docs/sync.md: what a webpack app does to sync).
 */
import { importPeer } from '../util/optional-peer.js';
import type { PouchStatic, ReplicaAdapter } from './pouch.js';

/** PouchDB's core with the plugins every replica uses. */
export interface PouchCore {
  readonly PouchDB: PouchStatic;
  readonly http: unknown;
  readonly replication: unknown;
}

const NEEDED_FOR = 'memory.sync';

export async function importPouchCore(): Promise<PouchCore> {
  const [core, http, replication] = await Promise.all([
    importPeer('pouchdb-core', NEEDED_FOR, () => import(/* webpackIgnore: true */ 'pouchdb-core')),
    importPeer('pouchdb-adapter-http', NEEDED_FOR, () => import(/* webpackIgnore: true */ 'pouchdb-adapter-http')),
    importPeer('pouchdb-replication', NEEDED_FOR, () => import(/* webpackIgnore: true */ 'pouchdb-replication')),
  ]);
  return { PouchDB: core.default, http: http.default, replication: replication.default };
}

/** The PouchDB adapter plugin of a replica kept in `adapter`. */
export async function importReplicaAdapter(adapter: ReplicaAdapter): Promise<unknown> {
  const neededFor = `${NEEDED_FOR}'s ${adapter} replica`;
  if (adapter === 'idb') return (await importPeer('pouchdb-adapter-idb', neededFor, () => import(/* webpackIgnore: true */ 'pouchdb-adapter-idb'))).default;
  // Node only (LevelDB's native module, memdown's streams): named through a variable, so no browser bundle follows them.
  const peer: 'pouchdb-adapter-leveldb' | 'pouchdb-adapter-memory' = adapter === 'leveldb' ? 'pouchdb-adapter-leveldb' : 'pouchdb-adapter-memory';
  const name: string = peer;
  return ((await importPeer(peer, neededFor, () => import(/* @vite-ignore */ /* webpackIgnore: true */ name))) as { default: unknown }).default;
}
