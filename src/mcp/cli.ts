#!/usr/bin/env node
/**
 * `vmem-mcp --dir ./my-memory`: the memory tools over MCP on stdio, for desktop MCP clients. The
 * memory lives in the folder (see `createFileStorage`); the embedded encoders run in this process.
 * Only MCP messages go to stdout; everything else goes to stderr.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createMemory, isVmemError } from 'vmem';
import { createFileStorage, createNodeEmbeddedEncoders, nodeImageResizer } from 'vmem/node';
import { imageFileResolver } from './image-files.js';

const USAGE = `Usage: vmem-mcp --dir <folder> [--session <id>]

Serves a vmem long-term memory over MCP on stdin/stdout.
  --dir <folder>    where the memory is kept (created if missing); one server per folder
  --session <id>    session id of the rounds "remember" stores (default: mcp)
  --help            show this help`;

/** The MCP SDK and zod are optional peers of vmem: only this server needs them. */
const MISSING_PEERS = `vmem-mcp needs @modelcontextprotocol/sdk and zod beside vmem. Run it as
  npx -y -p vmem -p @modelcontextprotocol/sdk -p zod vmem-mcp --dir <folder>
or install them: npm install @modelcontextprotocol/sdk zod`;

async function loadServer() {
  try {
    const [{ StdioServerTransport }, { createMcpServer }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), import('./server.js')]);
    return { StdioServerTransport, createMcpServer };
  } catch (error) {
    if ((error as { code?: string })?.code === 'ERR_MODULE_NOT_FOUND') {
      process.stderr.write(`${MISSING_PEERS}\n`);
      process.exit(1);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { dir: { type: 'string' }, session: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!values.dir) {
    process.stderr.write(`vmem-mcp: --dir is required.\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const { StdioServerTransport, createMcpServer } = await loadServer();
  const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const { text, image } = createNodeEmbeddedEncoders();
  const memory = await createMemory({ textEncoder: text, imageEncoder: image, storage: await createFileStorage(values.dir), imageResizer: nodeImageResizer });
  const server = createMcpServer(memory, { version, imageResizer: nodeImageResizer, resolveImage: imageFileResolver(process.cwd()), sessionId: values.session ?? 'mcp' });

  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= (async () => {
      await server.close();
      await memory.close();
      process.exit(0);
    })());
  process.stdin.on('end', shutdown);
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  await server.connect(new StdioServerTransport());
  process.stderr.write(`vmem-mcp ${version}: serving ${resolve(values.dir)} (${memory.size} rounds)\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`vmem-mcp: ${isVmemError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
