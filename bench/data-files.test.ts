import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VmemError } from 'vmem';
import { readJsonFiles } from './data-files.js';

describe('readJsonFiles', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'vmem-bench-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('reads every .json file of a folder in name order, or a single file', async () => {
    await writeFile(join(folder, 'b.json'), '{"n":2}');
    await writeFile(join(folder, 'a.json'), '{"n":1}');
    await writeFile(join(folder, 'notes.txt'), 'skip me');
    expect((await readJsonFiles(folder)).map((f) => f.json)).toEqual([{ n: 1 }, { n: 2 }]);
    expect((await readJsonFiles(join(folder, 'b.json'))).map((f) => f.json)).toEqual([{ n: 2 }]);
  });

  it('names the file that does not parse', async () => {
    await writeFile(join(folder, 'cut.json'), '{"n":');
    await expect(readJsonFiles(folder)).rejects.toThrow(/cut\.json is not valid JSON/);
  });

  it('says when the path does not exist or holds no data', async () => {
    await expect(readJsonFiles(join(folder, 'nope'))).rejects.toThrow(/not found/);
    await expect(readJsonFiles(folder)).rejects.toThrow(VmemError);
  });
});
