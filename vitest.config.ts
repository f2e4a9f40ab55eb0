import { defineConfig } from 'vitest/config';
import { VMEM_ENTRY_ALIASES } from './vite.config.js';

export default defineConfig({
  resolve: { alias: VMEM_ENTRY_ALIASES },
  test: {
    include: ['{src,app,bench,scripts}/**/*.test.ts'],
    globalSetup: ['scripts/unit-test-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
