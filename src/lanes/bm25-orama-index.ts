/**
 * Orama's index component with its per-token insert made cheaper, recording exactly what Orama's
 * own insert records (radix tree postings, tf per document, token occurrences, field lengths):
 * - tf: tokens arrive de-duplicated (the tokenizer keeps one of each), so every tf is
 *   1 / tokens; Orama counts each token's occurrences over the whole list (quadratic per document).
 * - Each document's tf table is a dictionary-mode object (`Object.create(null)`): thousands of
 *   documents with different word sets would otherwise each build their own chain of hidden
 *   classes, which dominated insertion time and garbage collection.
 * - The radix tree is walked once per distinct word: the node holding a word keeps its identity
 *   when later words split the edge above it, and removals never delete nodes, so later documents
 *   with that word add themselves to the remembered node's posting set directly.
 * `onIndexed` hears each document's tokens as they are indexed (the lane keeps typed-array postings
 * beside Orama's), so nobody has to read them back out of Orama's tf tables.
 */
import { index as oramaIndex } from '@orama/orama/components';

type Component = ReturnType<typeof oramaIndex.createIndex>;
type InsertArgs = Parameters<Component['insert']>;

interface RadixNode {
  readonly s: string;
  readonly e: boolean;
  readonly c: ReadonlyMap<string, RadixNode>;
  readonly d: Set<number>;
  insert(word: string, doc: number): void;
}

interface TextIndexData {
  readonly indexes: Record<string, { readonly type: string; readonly node: RadixNode }>;
  readonly avgFieldLength: Record<string, number>;
  readonly fieldLengths: Record<string, Record<number, number | undefined>>;
  readonly frequencies: Record<string, Record<number, Record<string, number> | undefined>>;
  readonly tokenOccurrences: Record<string, Record<string, number>>;
}

interface Tokenizer {
  tokenize(raw: string, language?: string, prop?: string, withCache?: boolean): string[];
}

/** Called once per indexed text: the document (internal id), its distinct tokens, and each one's tf. */
export type IndexedListener = (doc: number, tokens: readonly string[], tf: number) => void;

export function createFastTextIndexComponent(onIndexed?: IndexedListener): Component {
  const base = oramaIndex.createIndex();
  const nodeOf = new Map<string, RadixNode>();
  const insert = (...args: InsertArgs): void => {
    const [implementation, data, prop, id, internalId, value, schemaType, language, tokenizer, docsCount, options] = args;
    const index = data as unknown as TextIndexData;
    const radix = index.indexes[prop];
    if (schemaType !== 'string' || radix?.type !== 'Radix' || typeof value !== 'string') {
      return base.insert(implementation, data, prop, id, internalId, value, schemaType, language, tokenizer, docsCount, options);
    }
    const doc = internalId as unknown as number;
    const tokens = (tokenizer as unknown as Tokenizer).tokenize(value, language, prop, false);
    // Orama's insertDocumentScoreParameters, with a dictionary-mode tf table.
    index.avgFieldLength[prop] = ((index.avgFieldLength[prop] ?? 0) * (docsCount - 1) + tokens.length) / docsCount;
    index.fieldLengths[prop]![doc] = tokens.length;
    const tfs = Object.create(null) as Record<string, number>;
    index.frequencies[prop]![doc] = tfs;
    const occurrences = index.tokenOccurrences[prop]!;
    const tf = 1 / tokens.length;
    for (const token of tokens) {
      tfs[token] = tf;
      occurrences[token] = (occurrences[token] ?? 0) + 1;
      const node = nodeOf.get(token);
      if (node) {
        node.d.add(doc);
        continue;
      }
      radix.node.insert(token, doc);
      const inserted = findNode(radix.node, token);
      if (inserted) nodeOf.set(token, inserted);
    }
    onIndexed?.(doc, tokens, tf);
  };
  return { ...base, insert: insert as Component['insert'] };
}

/** The node that ends exactly at `word`, if the tree holds it. */
function findNode(root: RadixNode, word: string): RadixNode | undefined {
  let node = root;
  let at = 0;
  while (at < word.length) {
    const child = node.c.get(word[at]!);
    if (!child || !word.startsWith(child.s, at)) return undefined;
    node = child;
    at += child.s.length;
  }
  return node.e ? node : undefined;
}
