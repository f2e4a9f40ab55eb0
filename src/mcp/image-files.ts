/** Image references an MCP client sends: data: URLs, file paths, and file: URLs. */
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VmemError, type ImageInput } from 'vmem';
import { imageFromDataUrl, type ImageSourceResolver } from 'vmem/tools';

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
};

/**
 * Reads a data: URL, or a file given as a path (relative paths from `baseDir`) or a file: URL.
 * Rejects with `INVALID_INPUT` naming the file when it cannot be read.
 */
export function imageFileResolver(baseDir: string): ImageSourceResolver {
  return async (source: string): Promise<ImageInput> => {
    if (/^\s*data:/i.test(source)) return imageFromDataUrl(source);
    const path = source.startsWith('file:') ? fileURLToPath(source) : resolve(baseDir, source);
    try {
      const bytes = new Uint8Array(await readFile(path));
      const mimeType = MIME_BY_EXTENSION[extname(path).toLowerCase()];
      return { bytes, ...(mimeType ? { mimeType } : {}) };
    } catch (error) {
      throw new VmemError('INVALID_INPUT', `Could not read the image file ${path} (${(error as Error).message}); give an existing file's path or a data: URL.`, { cause: error });
    }
  };
}
