import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every code example in docs/adapters.md is a file in src/examples/, which tsc checks; this keeps them identical.
const EXAMPLES = ['ai-sdk.ts', 'langchain.ts', 'mcp-client-config.json', 'file-storage.ts', 'agent.ts'];

describe('docs/adapters.md', () => {
  const doc = readFileSync(new URL('../../docs/adapters.md', import.meta.url), 'utf8');
  const example = (name: string) => readFileSync(new URL(`../examples/${name}`, import.meta.url), 'utf8').trimEnd();

  it('shows each example verbatim, and no code that is not one of them', () => {
    const blocks = [...doc.matchAll(/```(ts|json)\n([\s\S]*?)\n```/g)].map((match) => match[2]);
    expect(blocks).toEqual(EXAMPLES.map(example));
    expect(JSON.parse(example('mcp-client-config.json'))).toMatchObject({ mcpServers: { vmem: { command: 'npx', args: expect.arrayContaining(['vmem-mcp', '--dir']) } } });
  });
});
