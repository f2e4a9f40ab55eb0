import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompress } from './compress.js';
import { serveCompressed } from './serve-compressed.js';

/** GETs `path` with `headers`; the raw body (as sent) and the headers. */
function get(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(new URL(path, base), { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

describe('precompressed files, served', () => {
  const folder = mkdtempSync(join(tmpdir(), 'vmem-compressed-'));
  const script = 'console.log("a script worth compressing");\n'.repeat(200);
  let server: Server;
  let base = '';
  beforeAll(async () => {
    writeFileSync(join(folder, 'app.js'), script);
    writeFileSync(join(folder, 'weights.bin'), randomBytes(4096));
    writeFileSync(join(folder, 'tiny.js'), 'x');
    await precompress(folder);
    const compressed = serveCompressed(folder);
    server = createServer((req, res) => compressed(req, res, () => res.writeHead(200, { 'X-Fallthrough': 'yes' }).end('identity')));
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise<void>((done) => server.close(() => done()));
    rmSync(folder, { recursive: true, force: true });
  });

  it('answers brotli when accepted, else gzip, with the encoding, the type and Vary set, and the same bytes once decoded', async () => {
    const br = await get(base, '/app.js', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers).toMatchObject({ 'content-encoding': 'br', 'content-type': 'text/javascript; charset=utf-8', vary: 'Accept-Encoding', 'cache-control': 'no-cache' });
    expect(brotliDecompressSync(br.body).toString()).toBe(script);
    expect(br.body.length).toBeLessThan(script.length / 10);
    const gz = await get(base, '/app.js', { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(script);
    expect(Number(gz.headers['content-length'])).toBe(gz.body.length);
  });

  it('revalidates with a 304 and no body', async () => {
    const first = await get(base, '/app.js', { 'Accept-Encoding': 'br' });
    const again = await get(base, '/app.js', { 'Accept-Encoding': 'br', 'If-None-Match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('leaves to the static server what has no copy: no accepted encoding, a file that does not compress, a tiny file', async () => {
    const identity = await get(base, '/app.js', { 'Accept-Encoding': 'identity' });
    expect(identity.headers).toMatchObject({ 'x-fallthrough': 'yes', vary: 'Accept-Encoding' });
    for (const path of ['/weights.bin', '/tiny.js', '/missing.js', '/../etc/passwd']) {
      expect((await get(base, path, { 'Accept-Encoding': 'br, gzip' })).headers['x-fallthrough']).toBe('yes');
    }
  });
});
