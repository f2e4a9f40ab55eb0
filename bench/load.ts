import { assembleDataset, type BenchDataset, type DatasetName, type ParsedConversation } from './dataset.js';
import { readJsonFiles } from './data-files.js';
import { parseLocomoFile } from './locomo.js';
import { parseMemGalleryFile } from './memgallery.js';

/**
 * Reads a benchmark from a folder or a single file and converts it.
 * `limit` keeps the first N conversations: Mem-Gallery dialogue files in file-name order,
 * LoCoMo conversations in the order of the file(s).
 * @example const data = await loadDataset('locomo', '../shared/bench/locomo', 2);
 */
export async function loadDataset(name: DatasetName, path: string, limit?: number): Promise<BenchDataset> {
  const files = await readJsonFiles(path);
  const parsed: ParsedConversation[] =
    name === 'memgallery'
      ? files.map((file) => parseMemGalleryFile(file.path, file.json))
      : files.flatMap((file) => parseLocomoFile(file.path, file.json));
  return assembleDataset(name, parsed, limit);
}
