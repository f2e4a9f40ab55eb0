import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeImageResizer } from 'vmem/node';
import { FIXTURE_PHOTOS_DIR, readFixturePhoto } from '../testing/shared-data.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
// The file the `vmem-mcp` bin runs (package.json `bin` points at its build, dist/mcp/cli.js).
const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));

const clients: Client[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function startServer(dir: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, '--dir', dir], cwd: REPO, stderr: 'pipe' });
  const client = new Client({ name: 'vmem-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** Calls a tool and returns its JSON result (the first text content). */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ json: Record<string, unknown>; result: CallToolResult }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.find((part) => part.type === 'text');
  return { json: JSON.parse(text?.type === 'text' ? text.text : 'null') as Record<string, unknown>, result };
}

const recalledIds = (json: Record<string, unknown>) => (json.rounds as { id: string }[]).map((round) => round.id);

describe('vmem-mcp', () => {
  it('remembers photo rounds, recalls them by text and by image, and keeps them across a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vmem-mcp-'));
    folders.push(dir);
    const client = await startServer(dir);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['recall', 'recall_by_time', 'get_images', 'remember', 'forget']);
    expect(tools.find((tool) => tool.name === 'forget')!.annotations).toMatchObject({ destructiveHint: true });

    // One picture as a file path, one as a data: URL.
    const bike = await call(client, 'remember', { user: 'Look at my new motorcycle, I bought it today!', images: [{ source: `${FIXTURE_PHOTOS_DIR}sk_motorcycle_left.jpg` }] });
    const coffee = await call(client, 'remember', {
      user: 'My breakfast this morning.',
      assistant: 'Looks tasty.',
      images: [{ source: `data:image/jpeg;base64,${Buffer.from(readFixturePhoto('sk_coffee.jpg')).toString('base64')}`, caption: 'a cup of coffee on a saucer' }],
    });
    const bikeId = (bike.json.remembered as { id: string; session: string }).id;
    const coffeeId = (coffee.json.remembered as { id: string }).id;
    expect(bike.json.remembered).toMatchObject({ session: 'mcp', images: [{ id: expect.any(String) }] });
    await call(client, 'remember', { user: 'I start a new job at the library on Monday.' });

    const byText = await call(client, 'recall', { query: 'Which photo showed my motorcycle?', limit: 1 });
    expect(byText.json).toMatchObject({ case: 'text-to-image' });
    expect(recalledIds(byText.json)).toEqual([bikeId]);
    // A picture named in passing is asked for too: "motorcycle photo" is text→image.
    const terse = await call(client, 'recall', { query: 'motorcycle photo', limit: 1 });
    expect(terse.json).toMatchObject({ case: 'text-to-image' });
    expect(recalledIds(terse.json)).toEqual([bikeId]);
    expect((await call(client, 'recall', { query: 'cat photo', limit: 1 })).json).toMatchObject({ case: 'text-to-image' });

    // The query picture is the stored coffee photo shrunk and re-encoded, not the same bytes.
    const small = await nodeImageResizer(readFixturePhoto('sk_coffee.jpg'), 'image/jpeg', 200, 60);
    const query = `data:image/jpeg;base64,${Buffer.from(small.bytes).toString('base64')}`;
    const byImage = await call(client, 'recall', { query: 'Which of my photos looks like this one?', image: query, limit: 1 });
    expect(byImage.json).toMatchObject({ case: 'image+text-to-image', searchedWithImage: true });
    expect(recalledIds(byImage.json)).toEqual([coffeeId]);

    const pictures = await call(client, 'get_images', { roundIds: [bikeId] });
    expect(pictures.result.content).toEqual([expect.objectContaining({ type: 'text' }), expect.objectContaining({ type: 'image', mimeType: 'image/jpeg' })]);

    const mistake = await call(client, 'forget', { roundId: 'no-such-round' });
    expect(mistake.result.isError).toBe(true);
    expect(mistake.json).toMatchObject({ error: { code: 'UNKNOWN_ROUND' } });

    // One server per folder: a second one is refused while the first runs.
    const second = spawn(process.execPath, ['--import', 'tsx', CLI, '--dir', dir], { cwd: REPO });
    let refusal = '';
    second.stderr.on('data', (chunk: Buffer) => (refusal += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => second.on('exit', resolve));
    expect(code).toBe(1);
    expect(refusal).toContain('MEMORY_LOCKED');

    await client.close();
    clients.splice(clients.indexOf(client), 1);

    const restarted = await startServer(dir);
    expect(recalledIds((await call(restarted, 'recall', { query: 'Which photo showed my motorcycle?', limit: 1 })).json)).toEqual([bikeId]);
    expect(recalledIds((await call(restarted, 'recall', { query: 'Which of my photos looks like this one?', image: query, limit: 1 })).json)).toEqual([coffeeId]);
    expect((await call(restarted, 'forget', { roundId: coffeeId })).json).toEqual({ forgotten: coffeeId });
    const byTime = await call(restarted, 'recall_by_time', { from: '2000-01-01', to: '2100-01-01' });
    expect(recalledIds(byTime.json)).toEqual([bikeId, expect.any(String)]);
  });
});
