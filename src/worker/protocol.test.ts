import { describe, expect, it } from 'vitest';
import { MAX_WASM_THREADS, chooseWasmThreads } from './protocol.js';

describe('chooseWasmThreads', () => {
  it('uses one thread unless the page is isolated and has more than two cores', () => {
    expect(chooseWasmThreads(false, 8)).toBe(1);
    expect(chooseWasmThreads(true, 2)).toBe(1);
    expect(chooseWasmThreads(true, 3)).toBe(3);
    expect(chooseWasmThreads(true, 16)).toBe(MAX_WASM_THREADS);
  });
});
