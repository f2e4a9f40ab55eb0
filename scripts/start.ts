/**
 * `npm start`: builds the app when `dist-app/` is missing or older than the sources, then serves it
 * with `vite preview` (cross-origin isolated, offline-capable, compressed: the build's brotli and
 * gzip copies, see scripts/serve-compressed.ts) and prints the URL. Ctrl-C stops it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { preview } from 'vite';
import { APP_OUT_DIR } from '../vite.config.js';

const root = resolve(import.meta.dirname, '..');
const SOURCES = ['src', 'app', 'public', 'index.html', 'dropin-example.html', 'vite.config.ts'];
const port = Number(process.env.PORT ?? 4173);

/** Newest modification time under `path` (a file or a folder), skipping copied model files. */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return readdirSync(path)
    .filter((name) => name !== 'models' && name !== 'samples')
    .reduce((latest, name) => Math.max(latest, newest(join(path, name))), info.mtimeMs);
}

const built = join(root, APP_OUT_DIR, 'precache.json');
if (!existsSync(built) || statSync(built).mtimeMs < Math.max(...SOURCES.map((source) => newest(join(root, source))))) {
  console.log('start: building the app (dist-app/)…');
  const result = spawnSync('npx', ['tsx', 'scripts/build-app.ts'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const server = await preview({ root, configFile: join(root, 'vite.config.ts'), preview: { port, strictPort: true } });
console.log(`\nvmem demo: http://localhost:${port}/   (drop-in example: http://localhost:${port}/dropin-example.html)\nPress Ctrl-C to stop.`);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
