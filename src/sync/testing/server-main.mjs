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
// The browser tests' pages come from another origin (the preview server): answer CORS as a CouchDB
// configured with `[cors] origins = *` and credentials does.
app.use((request, response, next) => {
  response.setHeader('Access-Control-Allow-Origin', request.headers.origin ?? '*');
  response.setHeader('Access-Control-Allow-Credentials', 'true');
  response.setHeader('Access-Control-Allow-Methods', 'GET, PUT, POST, HEAD, DELETE, COPY, OPTIONS');
  response.setHeader('Access-Control-Allow-Headers', 'accept, authorization, content-type, origin, referer, x-csrf-token');
  response.setHeader('Access-Control-Expose-Headers', 'content-type, cache-control, accept-ranges, etag, server, x-couch-request-id, x-couch-update-newrev');
  if (request.method === 'OPTIONS') return response.sendStatus(204);
  next();
});
app.use('/', expressPouchDB(ServerPouch, { mode: 'minimumForPouchDB', inMemoryConfig: true, logPath: join(folder, 'log.txt') }));
app.listen(Number(port), '127.0.0.1', () => console.log('listening'));
