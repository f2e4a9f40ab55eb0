/**
 * What the drop-in script has in place of src/memory/load-sync.ts (scripts/build-app.ts aliases it):
 * the drop-in stays free of PouchDB, and `memory.sync` says where sync is.
 */
import { VmemError } from '../errors.js';
import type * as Session from './session.js';

export function loadSync(): Promise<typeof Session> {
  return Promise.reject(new VmemError('DEPENDENCY_MISSING', 'The drop-in script carries no sync; build the page with the vmem package (npm install vmem plus the PouchDB peers, docs/sync.md) to call memory.sync.'));
}
