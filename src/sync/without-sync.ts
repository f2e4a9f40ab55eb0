/**
 * What the drop-in script has in place of src/sync/session.ts (scripts/build-app.ts aliases it): the
 * drop-in stays free of PouchDB, and `memory.sync` says where sync is.
 */
import { VmemError } from '../errors.js';
import type { SyncHandle } from './types.js';

export function startSync(): SyncHandle {
  throw new VmemError('DEPENDENCY_MISSING', 'The drop-in script carries no sync; build the page with the vmem package (npm install vmem plus the PouchDB peers, docs/sync.md) to call memory.sync.');
}
