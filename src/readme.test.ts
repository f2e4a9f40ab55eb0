import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The README's usage example is src/examples/quickstart.ts, which tsc checks; this keeps them identical.
describe('README', () => {
  it('shows the type-checked quickstart verbatim', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const example = readFileSync(new URL('./examples/quickstart.ts', import.meta.url), 'utf8')
      .replace("'../index.js'", "'vmem'")
      .replace("'../node.js'", "'vmem/node'")
      .trimEnd();
    expect(readme).toContain('```ts\n' + example + '\n```');
  });
});
