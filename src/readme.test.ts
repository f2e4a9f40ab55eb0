import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every TypeScript example in the README is a file in src/examples/, which tsc checks; this keeps them identical.
const EXAMPLES = ['browser.ts', 'quickstart.ts'];

describe('README', () => {
  it('shows each type-checked example verbatim, and no TypeScript that is not one of them', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)\n```/g)].map((match) => match[1]);
    const examples = EXAMPLES.map((name) => readFileSync(new URL(`./examples/${name}`, import.meta.url), 'utf8').trimEnd());
    expect(blocks).toEqual(examples);
  });
});
