/** A LangChain retriever over a memory: one `Document` per retrieved round. */
import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import type { ImageRef, Memory, RetrievalCase, RetrievalOptions } from 'vmem';
// Not (yet) a public export of `vmem`: the block formatter answers use.
import { formatContext } from '../../llm/format-context.js';

/** What each document's `metadata` holds. */
export interface VmemDocumentMetadata {
  readonly roundId: string;
  readonly sessionId: string;
  /** Epoch ms. */
  readonly timestamp: number;
  /** ISO 8601. */
  readonly date: string;
  /** 1-based fused rank; undefined for a round that came back as context around a hit. */
  readonly rank?: number;
  /** True when the round is context around a hit, not a hit itself. */
  readonly neighbour: boolean;
  /** The round's pictures; fetch bytes with `memory.getImage(id)`. */
  readonly images: readonly ImageRef[];
  /** The retrieval case the question was routed to. */
  readonly case: RetrievalCase;
  /** Hits only: the estimated probability, in [0, 1], that the round is relevant. */
  readonly confidence?: number;
}

/** Fields of `VmemRetriever`. */
export interface VmemRetrieverInput extends BaseRetrieverInput {
  readonly memory: Pick<Memory, 'retrieve'>;
  /** Options of each `retrieve`. @default the memory's defaults */
  readonly retrieval?: RetrievalOptions;
  /** Time zone of the dates in `pageContent`. @default 'UTC' */
  readonly timeZone?: string;
}

/**
 * Routed retrieval as a LangChain `BaseRetriever`: `invoke(question)` gives one `Document` per
 * returned round (hits by rank, then context rounds), whose `pageContent` is the round as dated
 * `User:`/`Assistant:` lines with its images' captions, and whose metadata carries the round id,
 * session, timestamp, image references and (for hits) confidence. With `retrieval: { dropWeakHits:
 * true }` it gives only the hits that reach `minConfidence`, so none when memory holds nothing that
 * seems relevant.
 * @example
 * const retriever = new VmemRetriever({ memory, retrieval: { k: 5 } });
 * const docs = await retriever.invoke('Where did my sister move?');
 */
export class VmemRetriever extends BaseRetriever<VmemDocumentMetadata> {
  lc_namespace = ['vmem', 'retrievers'];
  private readonly memory: VmemRetrieverInput['memory'];
  private readonly retrieval: RetrievalOptions | undefined;
  private readonly timeZone: string | undefined;

  static lc_name(): string {
    return 'VmemRetriever';
  }

  constructor(fields: VmemRetrieverInput) {
    super(fields);
    this.memory = fields.memory;
    this.retrieval = fields.retrieval;
    this.timeZone = fields.timeZone;
  }

  async _getRelevantDocuments(query: string, _runManager?: CallbackManagerForRetrieverRun): Promise<Document<VmemDocumentMetadata>[]> {
    const result = await this.memory.retrieve(query, this.retrieval);
    const ordered = [...result.trace].sort((a, b) => Number(a.neighbour) - Number(b.neighbour) || (a.rank ?? 0) - (b.rank ?? 0));
    const returned = new Map(result.blocks.flatMap((block) => block.rounds).map((round) => [round.id, round]));
    return ordered.flatMap((entry) => {
      const round = returned.get(entry.roundId);
      if (!round) return [];
      const pageContent = formatContext([{ sessionId: round.sessionId, rounds: [round] }], this.timeZone === undefined ? {} : { timeZone: this.timeZone });
      const metadata: VmemDocumentMetadata = {
        roundId: round.id,
        sessionId: round.sessionId,
        timestamp: round.timestamp,
        date: new Date(round.timestamp).toISOString(),
        ...(entry.rank === undefined ? {} : { rank: entry.rank }),
        neighbour: entry.neighbour,
        images: [...round.user.images, ...round.assistant.images],
        case: result.case,
        ...(entry.confidence === undefined ? {} : { confidence: entry.confidence }),
      };
      return [new Document({ pageContent, metadata, id: round.id })];
    });
  }
}
