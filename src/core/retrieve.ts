import type { NormalizedRetrievalOptions } from '../options.js';
import type {
  Block,
  ImageRef,
  Lane,
  RetrievalCase,
  RetrievalResult,
  ReturnedUnit,
  Route,
  Signal,
  StoredRound,
  TraceEntry,
  TraceHit,
  UnitKind,
} from '../types.js';
import { imagesOf } from '../types.js';
import { toBlocks, withNeighbours } from './assemble.js';
import { captionUnitId, derivedUnitId, textUnitId } from './unit-ids.js';
import { bestPerGroup, reciprocalRankFusion, type FusedCandidate, type SignalRanking } from './fusion.js';
import { retrievalCase } from './route.js';

/** A unit hit from a lane search, best first. */
export interface LaneHit {
  readonly unitId: string;
  readonly roundId: string;
  readonly score: number;
}

/** What retrieval needs to know about a unit. */
export interface UnitInfo {
  readonly roundId: string;
  readonly kind: UnitKind;
  readonly text?: string;
  readonly imageId?: string;
}

/** Read access to a memory's history and lane indexes; `accept` filters by round id. */
export interface IndexView {
  readonly history: readonly StoredRound[];
  readonly indexOf: ReadonlyMap<string, number>;
  unit(unitId: string): UnitInfo | undefined;
  /** Rounds with an image within ±1 in their session (cached by the memory). */
  roundsNearImages(): ReadonlySet<string>;
  bm25(text: string, limit: number, accept?: (roundId: string) => boolean): LaneHit[];
  /** Text lane dense search; `captionsOnly` restricts it to units describing images (captions, derived descriptions). */
  dense(vector: Float32Array, limit: number, accept?: (roundId: string) => boolean, captionsOnly?: boolean): LaneHit[];
  image(vector: Float32Array, limit: number, accept?: (roundId: string) => boolean): LaneHit[];
  /** The stored text-lane vector of a unit. */
  textVector(unitId: string): Float32Array | undefined;
}

/** The query after routing and encoding. */
export interface EncodedQuery {
  readonly route: Route;
  /** Text searched by BM25 and dense (raw question, plus image keywords when a vision LLM added them). */
  readonly text: string;
  readonly textVector?: Float32Array;
  readonly imageVector?: Float32Array;
  readonly captionAnchor?: string;
  readonly captionAnchorVector?: Float32Array;
  /** Words a vision LLM read off the query image (already appended to `text`). */
  readonly imageKeywords?: readonly string[];
  readonly warnings?: readonly string[];
}

type SignalSource = 'bm25' | 'dense' | 'caption-dense' | 'image' | 'image-echo';

/**
 * Which rounds a signal may vote for: all of them, those within ±1 of an image (text→image), or those
 * holding one of the image lane's top-k matches (image+text→text).
 */
type SignalScope = 'all' | 'near-images' | 'image-matches';

interface PlannedSignal {
  readonly signal: Signal;
  /** The lane searched. */
  readonly lane: Lane;
  /** The lane whose vote it shares under lane balance (an echo of the image match votes with the image lane). */
  readonly voteLane: Lane;
  readonly source: SignalSource;
  readonly scope: SignalScope;
}

/**
 * Which signals fire for a case. With routing off, every lane the query supports fires over all
 * units with the raw query (the benchmark's `vanilla` ablation).
 */
export function planSignals(query: EncodedQuery, options: NormalizedRetrievalOptions): PlannedSignal[] {
  const hasText = query.text.trim() !== '' && query.textVector !== undefined;
  const hasImage = query.imageVector !== undefined;
  const textSignals = (scope: SignalScope): PlannedSignal[] =>
    hasText
      ? [
          { signal: 'bm25', lane: 'text', voteLane: 'text', source: 'bm25', scope },
          { signal: 'dense', lane: 'text', voteLane: 'text', source: 'dense', scope },
        ]
      : [];
  const imageSignal: PlannedSignal[] = hasImage ? [{ signal: 'image', lane: 'image', voteLane: 'image', source: 'image', scope: 'all' }] : [];
  const nearImages: SignalScope = options.imageRoundFilter ? 'near-images' : 'all';
  if (!options.routing) return [...textSignals('all'), ...imageSignal];

  switch (retrievalCase(query.route)) {
    case 'text→text':
      return textSignals('all');
    case 'text→image': {
      const anchor: PlannedSignal[] = query.captionAnchorVector
        ? [{ signal: 'caption-anchor', lane: 'text', voteLane: 'text', source: 'caption-dense', scope: nearImages }]
        : [];
      return [...textSignals(nearImages), ...anchor];
    }
    case 'image+text→image':
      // An image the image lane cannot read (no encoder, no bytes) still has its text to go on.
      return hasImage ? imageSignal : textSignals(nearImages);
    case 'image+text→text': {
      if (!hasImage) return textSignals('all');
      // The question asks about the picture ("what breed is the dog in this photo?"), so its own words
      // match every round on the topic; they only re-rank the rounds the image lane found. Keywords a
      // vision LLM read off the picture describe it, and may search everywhere.
      const scope: SignalScope = query.imageKeywords?.length ? 'all' : 'image-matches';
      const echo: PlannedSignal = { signal: 'image-echo', lane: 'text', voteLane: 'image', source: 'image-echo', scope: 'all' };
      return [...imageSignal, echo, ...textSignals(scope)];
    }
  }
}

/** Runs routed retrieval over an index view. Pure: no I/O, no encoders, no LLM. */
export function runRetrieval(view: IndexView, query: EncodedQuery, options: NormalizedRetrievalOptions): RetrievalResult {
  const theCase = retrievalCase(query.route);
  const aggregate = options.aggregationBranch && query.route.aggregation;
  const k = aggregate ? options.aggregationK : options.k;
  const radius = aggregate ? 0 : options.neighbours;
  const unitLevel = options.granularity === 'unit';
  // A wider k needs a pool at least as deep, or aggregation could never fill it.
  const pool = Math.max(options.poolSize, k);

  const planned = planSignals(query, options).filter((plan) => options.weights[plan.signal] !== 0);

  // Lanes vote equally: the text lane's signals share one lane's say, so two text signals that agree on
  // generic words cannot outvote the image lane, the one that tells pictures apart.
  const lanePeers = (lane: Lane) => (options.laneBalance ? planned.filter((plan) => plan.voteLane === lane).length : 1);
  // Round-level ranking keeps a round's best unit; fetch enough units to fill the pool with rounds.
  const unitLimit = unitLevel ? pool : pool * 4;
  const hitsOf = new Map<SignalSource, LaneHit[]>();
  const imageHits = (): LaneHit[] => {
    let hits = hitsOf.get('image');
    if (!hits) {
      hits = searchSignal(view, query, 'image', unitLimit, undefined);
      hitsOf.set('image', hits);
    }
    return hits;
  };
  const scopes = new Map<SignalScope, ((roundId: string) => boolean) | undefined>();
  const acceptFor = (scope: SignalScope) => {
    if (!scopes.has(scope)) scopes.set(scope, scopeFilter(view, scope, imageHits, k));
    return scopes.get(scope);
  };
  const rankings: SignalRanking[] = planned.map((plan) => {
    const accept = acceptFor(plan.scope);
    const hits =
      plan.source === 'image-echo'
        ? echoSearch(view, imageHits(), unitLimit)
        : searchSignal(view, query, plan.source, unitLimit, accept);
    hitsOf.set(plan.source, hits);
    const candidates = bestPerGroup(hits, (hit) => (unitLevel ? hit.unitId : hit.roundId), pool);
    return { signal: plan.signal, lane: plan.lane, weight: options.weights[plan.signal] / lanePeers(plan.voteLane), candidates };
  });
  const ranked = reciprocalRankFusion(rankings, options.rrfK);
  const fused = ranked.slice(0, k);
  // Round keys of every candidate any signal put in its pool: the evidence a neighbour needs.
  const evidence = options.neighboursNeedEvidence && !unitLevel ? new Set(ranked.map((candidate) => candidate.key)) : undefined;

  const base: ResultBase = {
    case: theCase,
    route: query.route,
    queryText: query.text,
    ...(query.captionAnchor ? { captionAnchor: query.captionAnchor } : {}),
    ...(query.warnings?.length ? { warnings: query.warnings } : {}),
  };
  return unitLevel ? unitResult(view, fused, base) : roundResult(view, fused, radius, evidence, theCase, base);
}

/** The rounds a scope lets a signal vote for; undefined lets it vote for all (also when a filter would leave none). */
function scopeFilter(view: IndexView, scope: SignalScope, imageHits: () => LaneHit[], k: number): ((roundId: string) => boolean) | undefined {
  if (scope === 'all') return undefined;
  if (scope === 'near-images') {
    const near = view.roundsNearImages();
    return near.size > 0 ? (roundId) => near.has(roundId) : undefined;
  }
  const matched = new Set<string>();
  for (const hit of imageHits()) {
    if (matched.size >= k) break;
    matched.add(hit.roundId);
  }
  return matched.size > 0 ? (roundId) => matched.has(roundId) : undefined;
}

function searchSignal(
  view: IndexView,
  query: EncodedQuery,
  source: SignalSource,
  limit: number,
  accept: ((roundId: string) => boolean) | undefined,
): LaneHit[] {
  switch (source) {
    case 'bm25':
      return view.bm25(query.text, limit, accept);
    case 'dense':
      return query.textVector ? view.dense(query.textVector, limit, accept) : [];
    case 'caption-dense':
      return query.captionAnchorVector ? view.dense(query.captionAnchorVector, limit, accept, true) : [];
    case 'image':
      return query.imageVector ? view.image(query.imageVector, limit, accept) : [];
    case 'image-echo':
      return [];
  }
}

/**
 * The text lane searched with the stored vector of the best image match's caption (or, for a picture
 * without one, its machine-derived description), or of the turn that shared it: the conversation about
 * a matched picture often never repeats its caption's words in the question, but it does talk about
 * the same thing.
 */
function echoSearch(view: IndexView, imageHits: readonly LaneHit[], limit: number): LaneHit[] {
  const best = imageHits[0];
  const image = best && view.unit(best.unitId);
  if (!best || !image?.imageId) return [];
  const round = roundAt(view, best.roundId);
  const role = round?.user.images.some((ref) => ref.id === image.imageId) ? 'user' : 'assistant';
  const vector =
    view.textVector(captionUnitId(image.imageId)) ?? view.textVector(derivedUnitId(image.imageId)) ?? view.textVector(textUnitId(best.roundId, role));
  return vector ? view.dense(vector, limit) : [];
}

type ResultBase = Pick<RetrievalResult, 'case' | 'route' | 'queryText' | 'captionAnchor' | 'warnings'>;

function roundResult(
  view: IndexView,
  fused: FusedCandidate[],
  radius: number,
  evidence: ReadonlySet<string> | undefined,
  theCase: RetrievalCase,
  base: ResultBase,
): RetrievalResult {
  const hitIds = fused.map((candidate) => candidate.key);
  const selection = withNeighbours(hitIds, view.history, view.indexOf, radius, evidence && ((roundId) => evidence.has(roundId)));
  const blocks: Block[] = toBlocks(selection.roundIds, view.history, view.indexOf);

  const trace: TraceEntry[] = fused.map((candidate, index) => ({
    roundId: candidate.key,
    rank: index + 1,
    fusedScore: candidate.fusedScore,
    hits: candidate.votes.map((vote) => toTraceHit(view, vote)),
    neighbour: false,
  }));
  for (const [roundId, sources] of selection.neighbourOf) {
    trace.push({ roundId, fusedScore: 0, hits: [], neighbour: true, neighbourOf: sources });
  }

  const targetsImages = theCase === 'text→image' || theCase === 'image+text→image';
  const images = targetsImages ? imagesOfTopRounds(view, fused) : imagesOfRounds(view, trace.map((entry) => entry.roundId));
  return { ...base, blocks, images, trace };
}

/** For image targets: each top round's images, the one a signal matched first; else its neighbours'. */
function imagesOfTopRounds(view: IndexView, fused: readonly FusedCandidate[]): ImageRef[] {
  const out: ImageRef[] = [];
  const seen = new Set<string>();
  const push = (image: ImageRef) => {
    if (!seen.has(image.id)) {
      seen.add(image.id);
      out.push(image);
    }
  };
  for (const candidate of fused) {
    const round = roundAt(view, candidate.key);
    if (!round) continue;
    const own = imagesOf(round);
    if (own.length > 0) {
      const matched = new Set(candidate.votes.map((vote) => view.unit(vote.unitId)?.imageId).filter(Boolean));
      [...own].sort((a, b) => Number(matched.has(b.id)) - Number(matched.has(a.id))).forEach(push);
      continue;
    }
    const at = view.indexOf.get(round.id)!;
    for (const neighbour of [view.history[at - 1], view.history[at + 1]]) {
      if (neighbour && neighbour.sessionId === round.sessionId) imagesOf(neighbour).forEach(push);
    }
  }
  return out;
}

function imagesOfRounds(view: IndexView, roundIds: readonly string[]): ImageRef[] {
  return roundIds.flatMap((id) => {
    const round = roundAt(view, id);
    return round ? imagesOf(round) : [];
  });
}

function unitResult(view: IndexView, fused: FusedCandidate[], base: ResultBase): RetrievalResult {
  const units: ReturnedUnit[] = [];
  for (const candidate of fused) {
    const info = view.unit(candidate.key);
    if (!info) continue;
    units.push({
      unitId: candidate.key,
      roundId: info.roundId,
      kind: info.kind,
      text: info.text ?? '',
      ...(info.imageId ? { imageId: info.imageId } : {}),
    });
  }
  const roundIds = new Set(units.map((unit) => unit.roundId));
  const blocks = toBlocks(roundIds, view.history, view.indexOf);
  const trace: TraceEntry[] = [];
  const entryOf = new Map<string, { roundId: string; rank: number; fusedScore: number; hits: TraceHit[]; neighbour: false }>();
  fused.forEach((candidate, index) => {
    const roundId = view.unit(candidate.key)?.roundId;
    if (!roundId) return;
    let entry = entryOf.get(roundId);
    if (!entry) {
      entry = { roundId, rank: index + 1, fusedScore: candidate.fusedScore, hits: [], neighbour: false };
      entryOf.set(roundId, entry);
      trace.push(entry);
    }
    entry.hits.push(...candidate.votes.map((vote) => toTraceHit(view, vote)));
  });
  const images: ImageRef[] = [];
  for (const unit of units) {
    if (!unit.imageId || images.some((image) => image.id === unit.imageId)) continue;
    const round = roundAt(view, unit.roundId);
    const image = round && imagesOf(round).find((candidate) => candidate.id === unit.imageId);
    if (image) images.push(image);
  }
  return { ...base, blocks, images, trace, units };
}

function toTraceHit(view: IndexView, vote: FusedCandidate['votes'][number]): TraceHit {
  const unitKind = view.unit(vote.unitId)?.kind;
  return { lane: vote.lane, signal: vote.signal, rank: vote.rank, score: vote.score, unitId: vote.unitId, ...(unitKind ? { unitKind } : {}) };
}

function roundAt(view: IndexView, roundId: string): StoredRound | undefined {
  const at = view.indexOf.get(roundId);
  return at === undefined ? undefined : view.history[at];
}


