/**
 * `vite preview` (`npm start`, the e2e tests, `bench:browser`) serving the precompressed copies
 * `scripts/compress.ts` writes at build: brotli or gzip, whichever the browser accepts, with
 * `Content-Encoding`, `Vary: Accept-Encoding`, the original's `Content-Type`, and an `ETag` per
 * encoding so a revalidation (the service worker's, a reload's) costs a 304 and no body. Anything
 * without a copy falls through to Vite's own static server.
 */
import { createReadStream, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { Connect, Plugin } from 'vite';
import { COMPRESSIBLE, ENCODINGS } from './compress.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.md': 'text/markdown; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.bin': 'application/octet-stream',
};

/** The encodings a request accepts (`Accept-Encoding`), ignoring any given `q=0`. */
function accepted(request: IncomingMessage): Set<string> {
  const header = String(request.headers['accept-encoding'] ?? '');
  return new Set(
    header
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, quality]) => !/^\s*q=0(\.0*)?\s*$/.test(quality ?? ''))
      .map(([name]) => name!.trim().toLowerCase()),
  );
}

/** The middleware over the built folder `outDir`. */
export function serveCompressed(outDir: string): Connect.NextHandleFunction {
  const base = resolve(outDir);
  return (request: IncomingMessage, response: ServerResponse, next: Connect.NextFunction) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    let path: string;
    try {
      path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    } catch {
      return next();
    }
    const file = join(base, normalize(path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(base + sep) || !COMPRESSIBLE.has(extname(file))) return next();
    const wanted = accepted(request);
    const encoding = ENCODINGS.find(({ name, extension }) => wanted.has(name) && statSync(file + extension, { throwIfNoEntry: false })?.isFile());
    if (encoding === undefined) {
      // The identity body varies with Accept-Encoding too, when a copy exists.
      if (ENCODINGS.some(({ extension }) => statSync(file + extension, { throwIfNoEntry: false })?.isFile())) response.setHeader('Vary', 'Accept-Encoding');
      return next();
    }
    const copy = statSync(file + encoding.extension);
    const etag = `W/"${encoding.name}-${copy.size}-${Math.floor(copy.mtimeMs)}"`;
    response.setHeader('Vary', 'Accept-Encoding');
    response.setHeader('ETag', etag);
    response.setHeader('Cache-Control', 'no-cache');
    response.setHeader('Last-Modified', copy.mtime.toUTCString());
    if (request.headers['if-none-match'] === etag) {
      response.statusCode = 304;
      response.end();
      return;
    }
    response.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    response.setHeader('Content-Encoding', encoding.name);
    response.setHeader('Content-Length', copy.size);
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    createReadStream(file + encoding.extension).pipe(response);
  };
}

/** The plugin: the middleware on `vite preview`, after the ones that set headers (isolation, policy). */
export function compressedFiles(): Plugin {
  return {
    name: 'vmem:compressed-files',
    configurePreviewServer: (server) => void server.middlewares.use(serveCompressed(resolve(server.config.root, server.config.build.outDir))),
  };
}
