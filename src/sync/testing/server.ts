import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A CouchDB-protocol server (express-pouchdb over LevelDB) in a child process on loopback, for tests. */
export interface TestSyncServer {
  readonly folder: string;
  /** The URL of database `name` on it. */
  url(name: string): string;
  /** Kills the process (SIGKILL: no chance to flush), keeping its folder. */
  kill(): Promise<void>;
  /** Starts it again over the same folder. */
  restart(): Promise<void>;
  /** Every byte the server stored, file by file. */
  storedBytes(): Buffer[];
  stop(): Promise<void>;
}

const MAIN = fileURLToPath(new URL('./server-main.mjs', import.meta.url));

export async function startTestSyncServer(port: number): Promise<TestSyncServer> {
  const folder = mkdtempSync(join(tmpdir(), 'vmem-sync-server-'));
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const started = spawn(process.execPath, [MAIN, String(port), folder], { stdio: ['ignore', 'pipe', 'pipe'] });
      child = started;
      let errors = '';
      started.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      started.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
      started.on('exit', (code) => reject(new Error(`sync test server exited (${code}): ${errors}`)));
    });
  const kill = () =>
    new Promise<void>((resolve) => {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return resolve();
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  await start();
  return {
    folder,
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    kill,
    restart: start,
    storedBytes: () => files(folder).map((file) => readFileSync(file)),
    stop: async () => {
      await kill();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function files(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}
