import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { VmemError } from 'vmem';

/** A data file's path and its parsed JSON. */
export interface JsonFile {
  readonly path: string;
  readonly json: unknown;
}

/**
 * Reads `path` as one JSON file, or every `*.json` file directly inside it when it is a folder,
 * in file-name order (so `--limit` always picks the same files).
 */
export async function readJsonFiles(path: string): Promise<JsonFile[]> {
  const info = await stat(path).catch((cause: unknown) => {
    throw new VmemError('INVALID_INPUT', `Benchmark data not found at ${path}; pass --data with a folder or a .json file.`, { cause });
  });
  const paths = info.isDirectory() ? await jsonFilesIn(path) : [path];
  if (paths.length === 0) throw new VmemError('INVALID_INPUT', `No .json files in ${path}; pass --data with a folder of data files or one file.`);
  const files: JsonFile[] = [];
  for (const file of paths) files.push({ path: file, json: await readJson(file) });
  return files;
}

async function jsonFilesIn(folder: string): Promise<string[]> {
  const names = (await readdir(folder, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith('.json'))
    .map((entry) => entry.name)
    .sort();
  return names.map((name) => join(folder, name));
}

async function readJson(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new VmemError('INVALID_INPUT', `${path} is not valid JSON (${reason}); check that the file is complete.`, { cause });
  }
}
