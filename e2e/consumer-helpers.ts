/**
 * What the consumer specs share: the package packed once per test process (with `prepack`, as
 * `npm publish` would), npm installs the way a user runs them (no project `.npmrc`, none of npm's
 * or onnxruntime's environment variables; packages come from the local npm cache when it has them),
 * and a plain static file server.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { FIXTURE_PHOTOS_DIR } from '../src/testing/shared-data.js';

const root = resolve(import.meta.dirname, '..');

let packed: string | undefined;

/** The packed tarball's path; `npm pack` runs once per test process (its `prepack` builds dist/). */
export function packedTarball(): string {
  if (packed === undefined) {
    const folder = mkdtempSync(join(tmpdir(), 'vmem-pack-'));
    const output = execFileSync('npm', ['pack', '--pack-destination', folder], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    packed = join(folder, output.trim().split('\n').at(-1)!);
  }
  return packed;
}

/**
 * The environment of a user's shell: this repository's npm settings (which `npm test` hands its
 * children as `npm_config_*`, among them the CUDA skip) and onnxruntime's switches removed.
 */
export function userEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|ONNXRUNTIME)/i.test(name)));
  return { ...env, ...extra };
}

/**
 * `npm install <packages>` in `folder` as a user would run it, from the npm cache when it can; the
 * output (warnings included) is returned, a failure throws with it.
 */
export function npmInstall(folder: string, packages: readonly string[], env: NodeJS.ProcessEnv = userEnvironment()): string {
  const result = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packages], { cwd: folder, env, encoding: 'utf8' });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`npm install ${packages.join(' ')} failed in ${folder}:\n${output}`);
  return output;
}

/** Bytes of every file under `folder` (what `du` counts, without block rounding). */
export function folderBytes(folder: string): number {
  const result = spawnSync('du', ['-sb', folder], { encoding: 'utf8' });
  return Number(result.stdout.split('\t')[0]);
}

/**
 * A plain static server on a free port, returning its URL: no COOP/COEP headers, so pages are not
 * cross-origin isolated; `/photos/` serves the fixture photos; with `cors`, readable from other
 * origins; `without` a file, a 404 for it.
 */
export async function serveFolder(folder: string, servers: Server[], options: { cors?: boolean; without?: string } = {}): Promise<string> {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm', '.jpg': 'image/jpeg' };
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    const file = path.startsWith('/photos/') ? join(FIXTURE_PHOTOS_DIR, path.slice('/photos/'.length)) : join(folder, normalize(path === '/' ? '/index.html' : path));
    const cors = options.cors ? { 'Access-Control-Allow-Origin': '*' } : {};
    if (!statSync(file, { throwIfNoEntry: false })?.isFile() || (options.without !== undefined && path.endsWith(options.without))) {
      response.writeHead(404, cors).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream', ...cors });
    createReadStream(file).pipe(response);
  });
  servers.push(server);
  await new Promise<void>((ready) => server.listen(0, ready));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** Closes the servers `serveFolder` started. */
export async function closeServers(servers: Server[]): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((done) => server.close(() => done()))));
}
