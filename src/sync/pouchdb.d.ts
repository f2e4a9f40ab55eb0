// The part of PouchDB 9 that src/sync uses (the packages ship no types).
declare module 'pouchdb-core' {
  const PouchDB: import('./pouch.js').PouchStatic;
  export default PouchDB;
}
declare module 'pouchdb-adapter-http' {
  const plugin: unknown;
  export default plugin;
}
declare module 'pouchdb-replication' {
  const plugin: unknown;
  export default plugin;
}
declare module 'pouchdb-adapter-idb' {
  const plugin: unknown;
  export default plugin;
}
