/**
 * `npm run screenshots`: rebuilds the app and refreshes the screenshots under docs/ by running the
 * e2e tests tagged `@screenshots` with VMEM_SCREENSHOTS=1:
 *   - `screenshot-desktop.png`, `screenshot-360.png`: a 201-round Mem-Gallery memory answering a question;
 *   - `screenshot-error-*.png`: an error after "Add" (a full disk), beside the button;
 *   - `screenshot-offline-*.png`: the notice that offline use is not available (a 2 MB quota).
 * The e2e suite itself never writes under docs/ (those tests save into their output folder).
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run('npx', ['tsx', 'scripts/build-app.ts']);
run('npx', ['playwright', 'test', '--grep', '@screenshots'], { ...process.env, VMEM_SCREENSHOTS: '1' });
console.log('screenshots: docs/screenshot-{desktop,360,error-desktop,error-360,offline-desktop,offline-360}.png refreshed');
