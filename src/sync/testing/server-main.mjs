// A CouchDB-protocol server for the sync tests and `npm run bench:sync`: express-pouchdb over
// LevelDB in a folder, so a killed server restarts with what it had stored.
// Usage: node server-main.mjs PORT FOLDER
import express from 'express';
import expressPouchDB from 'express-pouchdb';
import PouchDB from 'pouchdb-core';
import leveldb from 'pouchdb-adapter-leveldb';
import http from 'pouchdb-adapter-http';
import replication from 'pouchdb-replication';
import { join } from 'node:path';

const [port, folder] = process.argv.slice(2);
const ServerPouch = PouchDB.plugin(leveldb).plugin(http).plugin(replication).defaults({ prefix: join(folder, '/') });
const app = express();
app.use('/', expressPouchDB(ServerPouch, { mode: 'minimumForPouchDB', inMemoryConfig: true, logPath: join(folder, 'log.txt') }));
app.listen(Number(port), '127.0.0.1', () => console.log('listening'));
