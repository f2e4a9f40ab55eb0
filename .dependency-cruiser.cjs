/**
 * Which folder may import which (docs/architecture.md explains why). Checked by
 * src/architecture.test.ts in the unit tests, and by `npx depcruise --config .dependency-cruiser.cjs src app bench`.
 */
const ENTRY = '^src/(index|browser|node|hub|web-llm|tools|video|internal|ai-sdk|langchain)\\.ts$';
const TESTS = '(\\.test\\.ts$|/testing/)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules form layers; a cycle means two modules should be one, or a type should move.',
      severity: 'error',
      from: { path: '^src/', pathNot: TESTS },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'core-is-pure',
      comment: 'The retrieval core (planning, routing, fusion, assembly) sees only the data model, options and errors (to reject a bad filter), and chrono-node, which reads dates.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: TESTS },
      to: { pathNot: ['^src/core/', '^src/types\\.ts$', '^src/options\\.ts$', '^src/errors\\.ts$', '^node_modules/chrono-node/'] },
    },
    {
      name: 'lanes-know-only-core-types',
      comment: 'The lanes index units; they know nothing of storage, encoders, memory or the worker.',
      severity: 'error',
      from: { path: '^src/lanes/', pathNot: TESTS },
      to: { path: '^src/(storage|encoders|memory|worker|llm|describe|adapters|mcp)/' },
    },
    {
      name: 'storage-is-a-port',
      comment: 'Storage keeps what it is given; it never indexes or encodes.',
      severity: 'error',
      from: { path: '^src/storage/', pathNot: TESTS },
      to: { path: '^src/(lanes|encoders|memory|core|worker|llm|describe|adapters|mcp)/' },
    },
    {
      name: 'encoders-stand-alone',
      comment: 'Encoders turn bytes into vectors; they know nothing of memories, retrieval or storage.',
      severity: 'error',
      from: { path: '^src/encoders/', pathNot: TESTS },
      to: { path: '^src/(memory|core|lanes|storage|worker|llm|adapters|mcp)/' },
    },
    {
      name: 'worker-hosts-encoders-only',
      comment: 'The worker hosts encoders (and the describer); the memory runs on the page.',
      severity: 'error',
      from: { path: '^src/worker/', pathNot: TESTS },
      to: { path: '^src/(memory|core|lanes|llm|adapters|mcp)/' },
    },
    {
      name: 'memory-stays-platform-free',
      comment: 'The memory facade runs in browsers and Node alike: no worker, no browser entry, no Node built-ins.',
      severity: 'error',
      from: { path: '^src/memory/', pathNot: TESTS },
      to: { path: ['^src/worker/', '^src/browser\\.ts$', '^src/node\\.ts$'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'sync-sees-a-port',
      comment: 'Sync replicates what the memory hands it (src/sync/types.ts SyncPort) and seals with the storage sealer; it never indexes, encodes or reaches into the memory.',
      severity: 'error',
      from: { path: '^src/sync/', pathNot: TESTS },
      to: { path: '^src/(lanes|encoders|memory|core|worker|llm|describe|adapters|mcp)/' },
    },
    {
      name: 'library-never-imports-its-users',
      comment: 'src/ is the package; the demo, the benchmark, the tests and the scripts use it, never the reverse.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(app|bench|e2e|scripts)/' },
    },
    {
      name: 'demo-imports-public-entries',
      comment: 'The demo, the drop-in and the bench page import the package by its entries, as an app that installed it would.',
      severity: 'error',
      from: { path: '^app/' },
      to: { path: '^src/', pathNot: [ENTRY, '^src/testing/'] },
    },
    {
      name: 'benchmark-imports-public-entries',
      comment: 'The benchmark imports the package by its entries (vmem/internal for what it measures inside); its tests may use the test helpers.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^src/', pathNot: [ENTRY, '^src/testing/', '^src/[a-z-]+/testing/'] },
    },
    {
      name: 'converter-is-build-tooling',
      comment: 'The TF.js-to-ONNX converter runs at build time (scripts/convert-models.ts) and in tests; the package ships its output, never the converter.',
      severity: 'error',
      from: { path: '^src/', pathNot: [TESTS, '^src/encoders/onnx/'] },
      to: { path: '^src/encoders/onnx/' },
    },
    {
      name: 'main-entry-is-browser-safe',
      comment: '`vmem` and `vmem/browser` load in a web page: nothing they reach may need Node.',
      severity: 'error',
      from: { path: '^src/(index|browser)\\.ts$' },
      to: { path: '^(node:)?(fs|path|url|os|child_process|worker_threads|http|https|net|crypto|stream|module|zlib|v8|vm)(/|$)', reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    exclude: { path: ['^dist', 'node_modules'] },
  },
};
