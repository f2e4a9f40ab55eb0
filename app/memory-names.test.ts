import { describe, expect, it } from 'vitest';
import { memoryNameFrom } from './memory-names.js';

describe('memoryNameFrom', () => {
  it.each([
    ['big<b>1200</b>', 'big1200'],
    ['Nature_Economics_Programming_Student_Life', 'Nature_Economics_Programming_Student_Life'],
    ['alice (backup 2)', 'alice (backup 2)'],
    ['evil\u202Egpj.exe', 'evil gpj.exe'],
    ['tab\tand\nnewline', 'tab and newline'],
    ['<script></script>', ''],
  ])('%j becomes %j', (input, name) => {
    expect(memoryNameFrom(input)).toBe(name);
  });

  it('keeps at most 100 characters', () => {
    expect(memoryNameFrom('x'.repeat(300))).toHaveLength(100);
  });
});
