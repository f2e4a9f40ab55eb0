/** Where a browser memory keeps its sync replica unless `sync({ replica })` names another. */
export function defaultReplicaName(memoryLabel: string): string {
  return `vmem-sync-${memoryLabel}`;
}

/** The IndexedDB database PouchDB's idb adapter keeps the replica `replica` in. */
export function replicaDatabaseName(replica: string): string {
  return `_pouch_${replica}`;
}
