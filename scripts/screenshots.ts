/**
 * `npm run screenshots`: rebuilds the app and refreshes the README screenshots
 * (`docs/screenshot-desktop.png`, `docs/screenshot-360.png`) by running the layout spec with
 * VMEM_SCREENSHOTS=1. The e2e suite itself never writes under docs/.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run('npx', ['tsx', 'scripts/build-app.ts']);
run('npx', ['playwright', 'test', 'e2e/layout.spec.ts'], { ...process.env, VMEM_SCREENSHOTS: '1' });
console.log('screenshots: docs/screenshot-desktop.png and docs/screenshot-360.png refreshed');
