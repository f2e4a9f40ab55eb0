import { describe, expect, it } from 'vitest';
import { patchThreadedFactorySource } from './tfjs-threads.js';

describe('patchThreadedFactorySource', () => {
  it("makes TF.js's pthread blob the package's self-contained source", () => {
    // What a minifier leaves: the function's text refers to `e` from its enclosing scope.
    const factory = function (this: unknown) {
      return 'bundled';
    };
    const source = "\nvar WasmBackendModuleThreadedSimd = (() => {\n  var _scriptDir = undefined;\n  return (function (m) { return m; });\n})();\nif (typeof exports === 'object') module.exports = WasmBackendModuleThreadedSimd;\n";
    expect(patchThreadedFactorySource(factory, source)).toBe(true);
    const blobText = 'var WasmBackendModuleThreadedSimd = ' + factory.toString();
    // The blob runs as a classic script in the pthread worker and must define the factory by itself.
    const defined = new Function(`${blobText}; return WasmBackendModuleThreadedSimd;`)() as (m: number) => number;
    expect(defined(7)).toBe(7);
    expect(factory.call(undefined)).toBe('bundled');
  });

  it('changes nothing when the source is not in the expected shape', () => {
    const factory = () => 'bundled';
    const before = factory.toString();
    expect(patchThreadedFactorySource(factory, 'export default function () {}')).toBe(false);
    expect(factory.toString()).toBe(before);
  });

  it('patches the real TF.js package source', () => {
    expect(patchThreadedFactorySource()).toBe(true);
  });
});
