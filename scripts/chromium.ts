/**
 * Finding a Chromium for the browser tests: `VMEM_CHROMIUM` when set, else a system Chromium or
 * Chrome, else the one `npx playwright install chromium` downloads. Run as a script (`npm test` does,
 * first), it makes sure one exists: as root on Debian or Ubuntu it installs Debian's `chromium`
 * package; anywhere else it stops at once with one line saying how to get one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const SYSTEM_BROWSERS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** The Chromium to launch, or undefined when there is none. `VMEM_CHROMIUM` wins, even when missing. */
export function findChromium(): string | undefined {
  const chosen = process.env.VMEM_CHROMIUM;
  if (chosen) return chosen;
  return [...SYSTEM_BROWSERS, chromium.executablePath()].find((path) => existsSync(path));
}

function isDebianLike(): boolean {
  if (!existsSync('/etc/os-release')) return false;
  const release = readFileSync('/etc/os-release', 'utf8');
  return /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(release);
}

function ensureChromium(): void {
  const found = findChromium();
  if (found && existsSync(found)) return;
  if (process.env.VMEM_CHROMIUM) {
    console.error(`VMEM_CHROMIUM is set to ${process.env.VMEM_CHROMIUM}, which does not exist; point it at a Chromium or Chrome binary.`);
    process.exit(1);
  }
  if (process.getuid?.() === 0 && isDebianLike()) {
    console.log('No Chromium found for the browser tests: installing Debian\'s "chromium" package (apt-get)…');
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (findChromium()) return;
  }
  console.error(
    'No Chromium found for the browser tests: install one (Debian/Ubuntu: sudo apt-get install chromium), run `npx playwright install chromium`, or set VMEM_CHROMIUM=/path/to/chrome.',
  );
  process.exit(1);
}

if (import.meta.url === `file://${process.argv[1]}`) ensureChromium();
