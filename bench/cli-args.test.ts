import { describe, expect, it } from 'vitest';
import { VmemError } from 'vmem';
import { HELP, parseBenchArgs } from './cli-args.js';

describe('parseBenchArgs', () => {
  it('reads a full command line', () => {
    expect(parseBenchArgs(['--dataset', 'locomo', '--data', 'd/locomo', '--limit', '2', '--json', 'out.json'])).toEqual({
      dataset: 'locomo',
      data: 'd/locomo',
      encoders: 'embedded',
      textWorkers: 1,
      curves: [],
      stages: false,
      floatVectors: false,
      limit: 2,
      json: 'out.json',
    });
  });

  it('reads the LLM settings, judging with the answering model unless told otherwise', () => {
    const args = parseBenchArgs(['--dataset', 'memgallery', '--data', 'd', '--llm', '--llm-base-url', 'http://h/v1', '--llm-model', 'm', '--llm-key', 'k']);
    expect(args).toMatchObject({ llm: { baseUrl: 'http://h/v1', model: 'm', apiKey: 'k', judgeModel: 'm' } });
  });

  it('reads --curves with the default budgets or --curve-budgets, and --cache-vectors with its folder', () => {
    expect(parseBenchArgs(['--dataset', 'locomo', '--data', 'd', '--curves'])).toMatchObject({ curves: [8, 12, 16, 24, 32] });
    expect(parseBenchArgs(['--dataset', 'locomo', '--data', 'd', '--curves', '--curve-budgets', '4, 10'])).toMatchObject({ curves: [4, 10] });
    expect(parseBenchArgs(['--dataset', 'locomo', '--data', 'd', '--stages', '--curve-budgets', '8'])).toMatchObject({ stages: true, curves: [8] });
    expect(parseBenchArgs(['--dataset', 'locomo', '--data', 'd', '--cache-vectors'])).toMatchObject({ vectorCacheDir: 'node_modules/.cache/vmem-bench' });
    expect(parseBenchArgs(['--dataset', 'locomo', '--data', 'd', '--cache-vectors', '--cache-dir', 'c'])).toMatchObject({ vectorCacheDir: 'c' });
  });

  it('reads --float-vectors', () => {
    expect(parseBenchArgs(['--dataset', 'memgallery', '--data', 'd', '--curves', '--float-vectors'])).toMatchObject({ floatVectors: true, curves: [8, 12, 16, 24, 32] });
  });

  it('answers --help with the help marker', () => {
    expect(parseBenchArgs(['--help'])).toBe(HELP);
  });

  it.each([
    [['--dataset', 'memgallery', '--data', 'd', '--bogus'], /Unknown option '--bogus'/],
    [['--dataset', 'memgallery'], /Missing --data/],
    [['--data', 'd'], /Missing --dataset/],
    [['--dataset', 'squad', '--data', 'd'], /Unknown dataset "squad"/],
    [['--dataset', 'locomo', '--data', 'd', '--limit', '0'], /--limit must be a whole number/],
    [['--dataset', 'locomo', '--data', 'd', '--encoders', 'gpu'], /Unknown --encoders "gpu"/],
    [['--dataset', 'locomo', '--data', 'd', '--llm-model', 'm'], /--llm-model needs --llm/],
    [['--dataset', 'locomo', '--data', 'd', '--llm'], /--llm needs --llm-base-url and --llm-model/],
    [['--dataset', 'locomo', '--data', 'd', '--curve-budgets', '8'], /--curve-budgets needs --curves or --stages/],
    [['--dataset', 'locomo', '--data', 'd', '--curves', '--curve-budgets', '8,x'], /--curve-budgets must be a whole number/],
    [['--dataset', 'locomo', '--data', 'd', '--cache-dir', 'c'], /--cache-dir needs --cache-vectors/],
  ])('refuses %j with a usage error', (argv, message) => {
    expect(() => parseBenchArgs(argv)).toThrow(message);
    expect(() => parseBenchArgs(argv)).toThrow(VmemError);
    expect(() => parseBenchArgs(argv)).toThrow(/Usage: npm run bench/);
  });
});
