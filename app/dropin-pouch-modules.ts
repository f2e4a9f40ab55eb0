/**
 * What the drop-in script has in place of src/sync/pouch-modules.ts (scripts/build-app.ts aliases
 * it): PouchDB comes from `pouchdb.mjs` in the script's own folder, fetched on the first
 * `memory.sync`, since a page without a bundler cannot install the peers.
 */
import { VmemError } from 'vmem';
import { SCRIPT_URL } from './dropin-script-url.js';

/** What app/dropin-pouchdb.ts exports; the module it stands in for types the same values. */
interface DropinPouchDB {
  readonly PouchDB: unknown;
  readonly http: unknown;
  readonly replication: unknown;
  readonly idb: unknown;
}

let loaded: Promise<DropinPouchDB> | undefined;

function loadPouchModule(): Promise<DropinPouchDB> {
  const url = SCRIPT_URL ? new URL('pouchdb.mjs', SCRIPT_URL).href : undefined;
  if (url === undefined) return Promise.reject(new VmemError('DEPENDENCY_MISSING', 'memory.sync could not tell where vmem.js was loaded from, so it cannot load pouchdb.mjs beside it; load vmem.js with a <script src>.'));
  loaded ??= (import(/* @vite-ignore */ url) as Promise<DropinPouchDB>).catch((cause: unknown) => {
    loaded = undefined;
    throw new VmemError('DEPENDENCY_MISSING', `memory.sync could not load ${url}: serve the whole dropin/ folder (pouchdb.mjs sits beside vmem.js), and allow it in the page's script-src.`, { cause });
  });
  return loaded;
}

export async function importPouchCore(): Promise<Omit<DropinPouchDB, 'idb'>> {
  const { PouchDB, http, replication } = await loadPouchModule();
  return { PouchDB, http, replication };
}

export async function importReplicaAdapter(adapter: string): Promise<unknown> {
  if (adapter !== 'idb') throw new VmemError('DEPENDENCY_MISSING', `The drop-in keeps its sync replica in IndexedDB; this page has none, so memory.sync cannot run here.`);
  return (await loadPouchModule()).idb;
}
