import { VmemError } from '../errors.js';
import { timeOf, type RetrievalFilter } from '../options.js';
import type { StoredRound } from '../types.js';

/** Which rounds a filter lets through; it reads only what a round's stored facts hold. */
export type RoundFilter = (round: Pick<StoredRound, 'sessionId' | 'timestamp' | 'meta'>) => boolean;

const FILTER_KEYS = new Set(['sessionIds', 'timeRange', 'meta']);

/**
 * Checks a filter and turns it into a test on rounds; undefined when there is nothing to test.
 * Rejects with `INVALID_INPUT` for an unknown key, session ids that are not strings, a time that
 * cannot be read, a range whose start is after its end, or a metadata value that is not a string,
 * number or boolean.
 */
export function compileFilter(filter: RetrievalFilter | undefined): RoundFilter | undefined {
  if (filter === undefined) return undefined;
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw new VmemError('INVALID_INPUT', 'The retrieval filter must be an object such as { sessionIds: [...], timeRange: { from, to }, meta: {...} }.');
  }
  const unknown = Object.keys(filter).filter((key) => !FILTER_KEYS.has(key));
  if (unknown.length > 0) {
    throw new VmemError('INVALID_INPUT', `Unknown retrieval filter key ${unknown.map((key) => `"${key}"`).join(', ')}; use sessionIds, timeRange or meta.`);
  }
  const tests: RoundFilter[] = [];
  if (filter.sessionIds !== undefined) {
    const ids = filter.sessionIds;
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
      throw new VmemError('INVALID_INPUT', 'filter.sessionIds must be an array of session id strings.');
    }
    const sessions = new Set(ids);
    tests.push((round) => sessions.has(round.sessionId));
  }
  if (filter.timeRange !== undefined) {
    const range = filter.timeRange;
    if (typeof range !== 'object' || range === null) throw new VmemError('INVALID_INPUT', 'filter.timeRange must be an object { from?, to? }.');
    const from = range.from === undefined ? undefined : timeOf(range.from, 'filter.timeRange.from');
    const to = range.to === undefined ? undefined : timeOf(range.to, 'filter.timeRange.to');
    if (from !== undefined && to !== undefined && from > to) {
      throw new VmemError(
        'INVALID_INPUT',
        `filter.timeRange starts (${new Date(from).toISOString()}) after it ends (${new Date(to).toISOString()}); swap from and to.`,
      );
    }
    tests.push((round) => (from === undefined || round.timestamp >= from) && (to === undefined || round.timestamp < to));
  }
  if (filter.meta !== undefined) {
    const meta = filter.meta;
    if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) throw new VmemError('INVALID_INPUT', 'filter.meta must be an object of key/value pairs.');
    const pairs = Object.entries(meta);
    for (const [key, value] of pairs) {
      if (!['string', 'number', 'boolean'].includes(typeof value)) {
        throw new VmemError('INVALID_INPUT', `filter.meta.${key} must be a string, number or boolean (metadata values are compared exactly), got ${describe(value)}.`);
      }
    }
    tests.push((round) => pairs.every(([key, value]) => round.meta?.[key] === value));
  }
  if (tests.length === 0) return undefined;
  return (round) => tests.every((test) => test(round));
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}
