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

describe('package entries', () => {
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
