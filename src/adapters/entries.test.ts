import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../', import.meta.url));
const ADAPTER_PACKAGES = /^(ai|zod|@langchain\/.+|@modelcontextprotocol\/.+)(\/.*)?$/;

/** Every package a source file imports, following its relative imports and `vmem` entry names. */
function packagesReachedFrom(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(/(?:^|\n)\s*(?:import|export)(?!\s+type\b)[^'"]*?from\s+'([^']+)'/g)) {
      if (specifier!.startsWith('.')) visit(resolve(dirname(file), specifier!.replace(/\.js$/, '.ts')));
      else if (specifier === 'vmem' || specifier!.startsWith('vmem/')) visit(resolve(SRC, `${specifier === 'vmem' ? 'index' : specifier!.slice(5)}.ts`));
      else packages.add(specifier!);
    }
  };
  visit(resolve(SRC, entry));
  return packages;
}

/** The package a specifier names: `@scope/name` or `name`, without a subpath. */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

describe('package entries', () => {
  it('the main entry keeps the verbs, the providers and the encoder factories: at most 20 names, ASCII like every entry', async () => {
    const main = Object.keys(await import('vmem')).sort();
    expect(main.length).toBeLessThanOrEqual(20);
    expect(main).toContain('createMemory');
    for (const entry of ['vmem', 'vmem/browser', 'vmem/hub', 'vmem/web-llm', 'vmem/tools', 'vmem/video', 'vmem/internal'] as const) {
      const names = Object.keys(await import(/* @vite-ignore */ entry));
      expect(names.filter((name) => !/^[A-Za-z_$][\w$]*$/.test(name))).toEqual([]);
    }
  });

  it('import only hard dependencies at load; optional peers (runtimes, transformers.js, WebLLM, tesseract.js) only on first use', () => {
    const manifest = JSON.parse(readFileSync(resolve(SRC, '../package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
    const adapters = new Set(['ai-sdk.ts', 'langchain.ts']);
    for (const entry of ['index.ts', 'browser.ts', 'node.ts', 'hub.ts', 'internal.ts', 'ai-sdk.ts', 'langchain.ts']) {
      const loaded = [...packagesReachedFrom(entry)].map(packageOf).filter((name) => !name.startsWith('node:') && !(name in manifest.dependencies));
      // The adapters' own frameworks are their peers, which an adapter's user installs to use it.
      const allowed = loaded.filter((name) => !(adapters.has(entry) && name in manifest.peerDependencies));
      expect({ entry, loaded: allowed }).toEqual({ entry, loaded: [] });
    }
  });

  it('vmem and vmem/node load none of the adapters’ frameworks; the adapters load only their own', () => {
    for (const entry of ['index.ts', 'node.ts', 'hub.ts', 'browser.ts'].filter((file) => existsSync(resolve(SRC, file)))) {
      expect({ entry, frameworks: [...packagesReachedFrom(entry)].filter((name) => ADAPTER_PACKAGES.test(name)) }).toEqual({ entry, frameworks: [] });
    }
    expect([...packagesReachedFrom('ai-sdk.ts')].filter((name) => ADAPTER_PACKAGES.test(name)).sort()).toEqual(['ai', 'zod']);
    expect([...packagesReachedFrom('langchain.ts')].filter((name) => ADAPTER_PACKAGES.test(name)).sort()).toEqual([
      '@langchain/core/documents',
      '@langchain/core/retrievers',
      '@langchain/core/tools',
      'zod',
    ]);
  });
});
