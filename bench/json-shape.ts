import { VmemError } from 'vmem';

/** Where a value sits in a data file, for error messages: `file.json: qa[3].evidence`. */
export type Where = string;

function shapeError(where: Where, expected: string, value: unknown): VmemError {
  const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
  return new VmemError('INVALID_INPUT', `${where} should be ${expected} but is ${got}; is this file in the expected benchmark format?`);
}

/** The value as a plain object, or a clear error naming where it is. */
export function asObject(value: unknown, where: Where): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw shapeError(where, 'an object', value);
  return value as Record<string, unknown>;
}

/** The value as an array, or a clear error naming where it is. */
export function asArray(value: unknown, where: Where): unknown[] {
  if (!Array.isArray(value)) throw shapeError(where, 'an array', value);
  return value;
}

/** The value as a string, or a clear error naming where it is. */
export function asString(value: unknown, where: Where): string {
  if (typeof value !== 'string') throw shapeError(where, 'a string', value);
  return value;
}

/** A string, or undefined when absent. */
export function optionalString(value: unknown, where: Where): string | undefined {
  return value === undefined ? undefined : asString(value, where);
}

/** An array of strings, or an empty array when absent. */
export function optionalStrings(value: unknown, where: Where): string[] {
  if (value === undefined) return [];
  return asArray(value, where).map((item, i) => asString(item, `${where}[${i}]`));
}

/** Answers are usually strings, sometimes numbers (LoCoMo); both become strings. */
export function asAnswer(value: unknown, where: Where): string {
  if (typeof value === 'number') return String(value);
  return asString(value, where);
}
