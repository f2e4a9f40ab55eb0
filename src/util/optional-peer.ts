/**
 * Optional peer dependencies: the heavy runtimes a single entry needs (onnxruntime-node for
 * `vmem/node`, transformers.js for `vmem/hub`, WebLLM for `vmem/web-llm`, tesseract.js for OCR in
 * Node) are installed by the user who needs them, and imported on first use. One that is missing
 * rejects with `DEPENDENCY_MISSING` naming the install command, never with a bare module error.
 */
import { VmemError } from '../errors.js';

/** The optional peers and the versions vmem is built and tested with (package.json `peerDependencies`). */
export const OPTIONAL_PEERS = {
  'onnxruntime-node': '1.30.0',
  'onnxruntime-web': '1.30.0',
  '@huggingface/transformers': '^4.3.2',
  '@mlc-ai/web-llm': '^0.2.86',
  'tesseract.js': '7.0.0',
  'pouchdb-core': '9.0.0',
  'pouchdb-adapter-http': '9.0.0',
  'pouchdb-replication': '9.0.0',
  'pouchdb-adapter-memory': '9.0.0',
  'pouchdb-adapter-leveldb': '9.0.0',
  'pouchdb-adapter-idb': '9.0.0',
} as const;

export type OptionalPeer = keyof typeof OPTIONAL_PEERS;

/** The command that installs `peer` at the version vmem expects. */
export function installCommand(peer: OptionalPeer): string {
  return `npm install ${peer}@${OPTIONAL_PEERS[peer].replace(/^\^/, '')}`;
}

/**
 * Runs `load` (a literal `import('<peer>')`, so bundlers see it); a missing package becomes
 * `DEPENDENCY_MISSING` naming what needs it and how to install it. Other failures pass through.
 * @param neededFor What needs the peer, as the subject of "needs it".
 * @example const ort = await importPeer('onnxruntime-node', 'vmem/node', () => import('onnxruntime-node'));
 */
export async function importPeer<T>(peer: OptionalPeer, neededFor: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    if (!isMissingPackage(cause, peer)) throw cause;
    throw new VmemError('DEPENDENCY_MISSING', `${peer} is not installed, and ${neededFor} needs it (an optional peer dependency of vmem). Install it with: ${installCommand(peer)}`, { cause });
  }
}

/** Whether `error` says that `peer` itself could not be found (not one of the peer's own imports). */
function isMissingPackage(error: unknown, peer: string): boolean {
  const message = String((error as Error | null)?.message ?? error);
  // Node: "Cannot find package 'x' imported from …" (or module); browsers: "Failed to resolve module specifier "x"".
  const named = /(?:Cannot find (?:module|package)|Failed to resolve module specifier) ['"]([^'"]+)['"]/.exec(message)?.[1];
  return named !== undefined && (named === peer || named.startsWith(`${peer}/`));
}
