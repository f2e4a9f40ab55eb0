/**
 * `dropin/pouchdb.mjs`: PouchDB for the drop-in's `memory.sync`, a module of its own beside
 * vmem.js, so a page that never syncs never downloads it (app/dropin-pouch-modules.ts loads it).
 */
export { default as PouchDB } from 'pouchdb-core';
export { default as http } from 'pouchdb-adapter-http';
export { default as replication } from 'pouchdb-replication';
export { default as idb } from 'pouchdb-adapter-idb';
