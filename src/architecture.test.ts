import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs') as { forbidden: NonNullable<ICruiseOptions['ruleSet']>['forbidden']; options: ICruiseOptions };

/** The import rules of docs/architecture.md, checked on the real sources by dependency-cruiser. */
describe('architecture', () => {
  it('every import follows the folder rules in .dependency-cruiser.cjs', async () => {
    const previous = process.cwd();
    process.chdir(ROOT);
    try {
      const result = await cruise(
        ['src', 'app', 'bench'],
        { ...config.options, ruleSet: { forbidden: config.forbidden }, validate: true, outputType: 'json' },
        undefined,
        { tsConfig: extractTSConfig('tsconfig.json') },
      );
      const output = typeof result.output === 'string' ? JSON.parse(result.output) : result.output;
      const violations = (output.summary.violations as IViolation[])
        .filter((violation) => violation.rule.severity === 'error')
        .map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`);
      expect(violations).toEqual([]);
    } finally {
      process.chdir(previous);
    }
  }, 120_000);
});
