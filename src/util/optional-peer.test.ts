import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPTIONAL_PEERS, importPeer, installCommand } from './optional-peer.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  dependencies: Record<string, string>;
};

describe('optional peers', () => {
  it('are the optional peer dependencies package.json declares, at the same versions, and never hard dependencies', () => {
    for (const [name, range] of Object.entries(OPTIONAL_PEERS)) {
      expect({ name, range: packageJson.peerDependencies[name], optional: packageJson.peerDependenciesMeta[name]?.optional }).toEqual({ name, range, optional: true });
      expect(packageJson.dependencies[name]).toBeUndefined();
    }
  });

  it('a missing one rejects with DEPENDENCY_MISSING naming what needs it and the install command', async () => {
    const missing = 'onnxruntime-node';
    // What Node says when the package is not installed.
    const notFound = Object.assign(new Error(`Cannot find package '${missing}' imported from /app/node_modules/vmem/dist/encoders/node-runtime.js`), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(importPeer(missing, 'vmem/node', () => Promise.reject(notFound))).rejects.toMatchObject({
      code: 'DEPENDENCY_MISSING',
      message: 'onnxruntime-node is not installed, and vmem/node needs it (an optional peer dependency of vmem). Install it with: npm install onnxruntime-node@1.30.0',
      cause: notFound,
    });
    expect(installCommand('@huggingface/transformers')).toBe('npm install @huggingface/transformers@4.3.2');
  });

  it("passes other failures through: a broken install, or a package the peer itself lacks", async () => {
    const broken = Object.assign(new Error("libonnxruntime.so.1: version 'VERS_1.21.0' not found"), { code: 'ERR_DLOPEN_FAILED' });
    await expect(importPeer('onnxruntime-node', 'vmem/node', () => Promise.reject(broken))).rejects.toBe(broken);
    const inner = Object.assign(new Error("Cannot find package 'sharp' imported from /app/node_modules/@huggingface/transformers/dist/transformers.node.mjs"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(importPeer('@huggingface/transformers', 'vmem/hub', () => Promise.reject(inner))).rejects.toBe(inner);
  });

  it('resolves with the module when it is there', async () => {
    await expect(importPeer('onnxruntime-node', 'vmem/node', async () => ({ ok: true }))).resolves.toEqual({ ok: true });
  });
});
