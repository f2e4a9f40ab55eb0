/** Cleaning Tesseract's output: keeps the words it is sure of, drops the rest. Pure. */

/** The part of tesseract.js's `blocks` output read here. */
export interface OcrBlock {
  readonly paragraphs: readonly {
    readonly lines: readonly { readonly words: readonly OcrWord[] }[];
  }[];
}

export interface OcrWord {
  readonly text: string;
  /** 0–100. */
  readonly confidence: number;
}

/** A word with a letter or digit in it; OCR of edges and specks yields lone punctuation. */
const READABLE = /[\p{L}\p{N}]/u;

/**
 * The lines of recognised text, each the words at or above `minConfidence` joined by spaces; lines
 * left empty are dropped.
 * @example keptLines(data.blocks, 60) // ['Region-based segmentation', 'Let us first determine…']
 */
export function keptLines(blocks: readonly OcrBlock[], minConfidence: number): string[] {
  const lines: string[] = [];
  for (const block of blocks) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const words = line.words.filter((word) => word.confidence >= minConfidence && READABLE.test(word.text)).map((word) => word.text.trim());
        if (words.length > 0) lines.push(words.join(' '));
      }
    }
  }
  return lines;
}
