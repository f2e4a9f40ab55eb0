import { CONFIDENCE_FEATURES, type NormalizedRetrievalOptions } from '../options.js';
import type { Block, ImageRef, Lane, RetrievalResult, ReturnedUnit, Role, StoredRound, TraceEntry, TraceHit, UnitKind } from '../types.js';
import { imagesOf } from '../types.js';
import { toBlocks, withNeighbours } from './assemble.js';
import { selectScored, type ContextSelection } from './context.js';
import { scoreConfidence, WORDS_READ_OF_BEST_ROUNDS, type Confidence } from './confidence.js';
import { CONFIDENCE_MODEL } from './confidence-model.js';
import { compileFilter } from './filter.js';
import { beyondRounding, bestPerGroup, reciprocalRankFusion, type FusedCandidate, type SignalRanking } from './fusion.js';
import type { PlannedSearch, QueryInput, QueryPlan, SignalScope } from './plan.js';
import { timeSpansIn, type TimeSpan } from './time-expressions.js';
import { captionUnitId, textUnitId } from './unit-ids.js';

/** A hit from a lane search, best first. `unitId` is the round id for whole-round BM25. */
export interface LaneHit {
  readonly unitId: string;
  readonly roundId: string;
  readonly score: number;
}

/** What retrieval needs to know about a unit (its text stays with its round until the result is assembled). */
export interface UnitInfo {
  readonly roundId: string;
  readonly kind: UnitKind;
  /** The turn it belongs to (a picture's: the turn that shared it). */
  readonly role: Role;
  readonly imageId?: string;
}

/**
 * A round as ranking sees it: where it sits, what filters look at, and its pictures' ids. The round
 * itself (texts, captions) is only read for the rounds a result returns (`assembleResult`).
 */
export interface HistoryRound {
  readonly id: string;
  readonly sessionId: string;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly meta?: Readonly<Record<string, string | number | boolean>>;
  readonly images: readonly { readonly id: string }[];
  /** The user's turn plans rather than reports (src/round-tense.ts). */
  readonly onlyPlans?: boolean;
}

/** Lane searches take an optional test on round ids; only accepted rounds' units are returned. */
export type AcceptRound = (roundId: string) => boolean;

/** Read access to a memory's history and lane indexes. */
export interface IndexView {
  readonly history: readonly HistoryRound[];
  readonly indexOf: ReadonlyMap<string, number>;
  unit(unitId: string): UnitInfo | undefined;
  /** Rounds with an image within ±1 in their session (cached by the memory). */
  roundsNearImages(): ReadonlySet<string>;
  /** History positions of a session's rounds, in order (kept by the memory, so no query scans the history for them). */
  sessionPositions(sessionId: string): readonly number[];
  /** BM25 over text-lane units; `captionsOnly` restricts it to caption units. */
  bm25(text: string, limit: number, accept?: AcceptRound, captionsOnly?: boolean): LaneHit[];
  /** BM25 over whole rounds (their turns' text together). */
  roundBm25(text: string, limit: number, accept?: AcceptRound): LaneHit[];
  /** How many rounds hold each of the text's words (as BM25 reads them), and how many rounds there are. */
  roundWordFrequencies(text: string): { readonly frequencies: readonly number[]; readonly documents: number };
  /** Whole rounds by how similar their words are to the text's (word vectors); empty without them. */
  similarWords(text: string, limit: number, accept?: AcceptRound): LaneHit[];
  /** Text-lane dense search; `captionsOnly` restricts it to caption units. */
  dense(vector: Float32Array, limit: number, accept?: AcceptRound, captionsOnly?: boolean): LaneHit[];
  image(vector: Float32Array, limit: number, accept?: AcceptRound): LaneHit[];
  /** The stored text-lane vector of a unit. */
  textVector(unitId: string): Float32Array | undefined;
}

/** What the memory made of a plan's `needs`. Anything missing (an LLM anchor that failed) is skipped. */
export interface EncodedQuery {
  /** The question as typed. */
  readonly text: string;
  readonly questionVector?: Float32Array;
  readonly contentVector?: Float32Array;
  readonly imageVector?: Float32Array;
  readonly captionAnchor?: { readonly text: string; readonly vector: Float32Array };
  /** Words that describe the attached picture: its caption, or keywords a vision LLM read off it (`keywords`). */
  readonly pictureWords?: { readonly text: string; readonly vector: Float32Array; readonly keywords?: readonly string[] };
  readonly warnings?: readonly string[];
}

/**
 * A ranked query: everything a result says, with rounds named by id. `roundIds` are the rounds
 * `assembleResult` needs (hits, context, and the neighbours whose pictures an image target shows).
 */
export interface RankedPlan {
  readonly roundIds: readonly string[];
  /** Builds the result from the rounds read; one no longer stored (forgotten meanwhile) is left out. */
  readonly assemble: (roundOf: (roundId: string) => StoredRound | undefined) => RetrievalResult;
}

/**
 * Runs a planned query over an index view: searches, fusion, time preference, context selection.
 * Pure: no I/O, no encoders, no LLM. The memory then reads the rounds it names and assembles.
 */
export function rankPlan(indexView: IndexView, plan: QueryPlan, query: EncodedQuery, options: NormalizedRetrievalOptions): RankedPlan {
  const view = searchingRoundsOnce(indexView);
  const roundFilter = compileFilter(options.filter);
  const admit: AcceptRound | undefined = roundFilter && ((roundId) => {
    const round = roundAt(view, roundId);
    return round !== undefined && roundFilter(round);
  });
  const unitLevel = options.granularity === 'unit';
  const pool = Math.max(options.poolSize, plan.k);
  const imageVector = query.imageVector;
  const scopes = new ScopeFilters(view, admit, plan.k, imageVector && (() => view.image(imageVector, unitLevel ? pool : pool * 4, admit)));

  const lanePeers = (lane: Lane) => (options.laneBalance ? plan.signals.filter((signal) => signal.voteLane === lane).length : 1);
  const rankings: SignalRanking[] = [];
  for (const signal of plan.signals) {
    for (const search of signal.searches) {
      // Unit hits collapse into rounds, so a round ranking asks for more of them than it keeps.
      const limit = unitLevel || ranksWholeRounds(search, options) ? pool : pool * 4;
      const hits = runSearch(view, query, search, scopes.accept(signal.scope), limit, options, scopes);
      if (hits === undefined) continue;
      rankings.push({
        signal: signal.signal,
        lane: signal.lane,
        weight: (options.weights[signal.signal] * search.share) / lanePeers(signal.voteLane),
        candidates: bestPerGroup(hits, (hit) => (unitLevel ? hit.unitId : hit.roundId), pool),
      });
    }
  }
  const fused = reciprocalRankFusion(rankings, options.rrfK);
  const bestImage = scopes.imageHits()[0];
  const base: ResultBase = {
    case: plan.case,
    route: plan.route,
    queryText: [query.text, ...(query.pictureWords?.keywords ?? [])].join(' ').trim(),
    ...(query.captionAnchor ? { captionAnchor: query.captionAnchor.text } : {}),
    ...(query.pictureWords?.keywords ? { imageKeywords: query.pictureWords.keywords } : {}),
    ...(bestImage && view.unit(bestImage.unitId)?.imageId
      ? { imageMatch: { imageId: view.unit(bestImage.unitId)!.imageId!, roundId: bestImage.roundId, score: bestImage.score } }
      : {}),
    ...(query.warnings?.length ? { warnings: query.warnings } : {}),
  };
  // For a picture target, "photo" or "show" names what is sought, not words a round should hold.
  const evidenceText = plan.route.target === 'image' ? query.text.replace(PICTURE_WORDS, ' ') : query.text;
  const bestBm25 = (text: string) => (text.trim() ? (view.roundBm25(text, 1, admit)[0]?.score ?? 0) : 0);
  const pictureText = query.pictureWords?.text;
  const confidenceOf = (ranked: readonly FusedCandidate[], roundText: RoundText, spans: readonly TimeSpan[] = []) =>
    scoreConfidence(
      {
        question: evidenceText,
        withImage: plan.route.queryModality === 'text+image',
        rankings,
        fused: ranked,
        roundText,
        wordFrequencies: view.roundWordFrequencies(evidenceText),
        bm25Anywhere: bestBm25(evidenceText),
        ...(pictureText ? { pictureWords: { wordFrequencies: view.roundWordFrequencies(pictureText), bm25Anywhere: bestBm25(pictureText) } } : {}),
        inNamedTime: (roundId) => {
          const at = roundAt(view, roundId)?.timestamp;
          return at !== undefined && spans.some((span) => !span.soft && at >= span.start && at < span.end);
        },
      },
      CONFIDENCE_MODEL,
    );
  if (unitLevel) {
    // Unit keys name no round, so no round's words are read.
    const confidence = confidenceOf(fused, () => undefined);
    return unitResult(view, fused.slice(0, plan.k), { ...base, confidence: confidence.overall, relevant: true });
  }

  const now = options.now ?? Date.now();
  const spans = options.timeExpressions ? timeSpansIn(query.text, { now, hasRoundsIn: (start, end) => view.history.some((round) => round.timestamp >= start && round.timestamp < end) }) : [];
  const ranked = spans.length > 0 ? preferTimes(view, fused, spans, query.text, now) : fused;
  const selection = select(view, plan, ranked, admit);
  return roundResult(view, plan, ranked, selection, (roundText) => confidenceOf(ranked, roundText, spans), options, { ...base, ...(spans.length > 0 ? { timeSpans: spans } : {}) });
}

/**
 * The view with whole-round BM25 searched once per text and filter in a query: confidence's best
 * score anywhere (limit 1) is the first hit of the BM25 signal's own search when both ask the same
 * (the best score does not depend on how many hits a search keeps), so that second pass over the
 * postings is not run.
 */
function searchingRoundsOnce(view: IndexView): IndexView {
  const searched: { text: string; accept: AcceptRound | undefined; limit: number; hits: LaneHit[] }[] = [];
  const roundBm25 = (text: string, limit: number, accept?: AcceptRound): LaneHit[] => {
    const done = searched.find((search) => search.text === text && search.accept === accept && search.limit >= limit);
    if (done) return done.hits.slice(0, limit);
    const hits = view.roundBm25(text, limit, accept);
    searched.push({ text, accept, limit, hits });
    return hits;
  };
  return { ...view, roundBm25 };
}

/** A ranked query's result from the rounds it names (read by the caller). */
export function assembleResult(ranked: RankedPlan, rounds: ReadonlyMap<string, StoredRound>): RetrievalResult {
  return ranked.assemble((roundId) => rounds.get(roundId));
}

/** The rounds a scope lets a signal vote for, built once per query. */
class ScopeFilters {
  private readonly built = new Map<SignalScope, AcceptRound | undefined>();
  private imageHitList: LaneHit[] | undefined;

  constructor(
    private readonly view: IndexView,
    private readonly admit: AcceptRound | undefined,
    private readonly k: number,
    private readonly imageSearch: (() => LaneHit[]) | undefined,
  ) {}

  /** The image lane's hits for this query (searched once, shared by the image signal, the echo and the scope). */
  imageHits(): LaneHit[] {
    this.imageHitList ??= this.imageSearch?.() ?? [];
    return this.imageHitList;
  }

  accept(scope: SignalScope): AcceptRound | undefined {
    if (!this.built.has(scope)) this.built.set(scope, this.build(scope));
    return this.built.get(scope);
  }

  private build(scope: SignalScope): AcceptRound | undefined {
    const admit = this.admit;
    if (scope === 'all') return admit;
    // A scope that would leave nothing (no pictures stored, no image match) does not apply.
    if (scope === 'near-images') {
      const near = this.view.roundsNearImages();
      if (near.size === 0) return admit;
      return (roundId) => near.has(roundId) && (!admit || admit(roundId));
    }
    const matched = new Set<string>();
    for (const hit of this.imageHits()) {
      if (matched.size >= this.k) break;
      matched.add(hit.roundId);
    }
    return matched.size > 0 ? (roundId) => matched.has(roundId) : admit;
  }
}

function runSearch(
  view: IndexView,
  query: EncodedQuery,
  search: PlannedSearch,
  accept: AcceptRound | undefined,
  limit: number,
  options: NormalizedRetrievalOptions,
  scopes: ScopeFilters,
): LaneHit[] | undefined {
  switch (search.source) {
    case 'bm25': {
      const text = textOf(query, search.input);
      if (!text) return undefined;
      const hits = options.bm25Over === 'round' && options.granularity === 'round' ? view.roundBm25(text, limit, accept) : view.bm25(text, limit, accept);
      return aboveFloor(hits, options.bm25Floor);
    }
    case 'similar-words': {
      // It ranks whole rounds, which a unit-level ranking (an ablation) has no place for.
      const text = options.granularity === 'round' ? textOf(query, search.input) : undefined;
      return text ? view.similarWords(text, limit, accept) : undefined;
    }
    case 'caption-bm25': {
      const text = textOf(query, search.input);
      return text ? aboveFloor(view.bm25(text, limit, accept, true), options.bm25Floor) : undefined;
    }
    case 'dense':
    case 'caption-dense': {
      const vector = vectorOf(query, search.input);
      return vector ? view.dense(vector, limit, accept, search.source === 'caption-dense') : undefined;
    }
    case 'image':
      return query.imageVector ? scopes.imageHits().filter((hit) => !accept || accept(hit.roundId)) : undefined;
    case 'image-echo':
      return echoSearch(view, scopes.imageHits(), limit, accept);
  }
}

/**
 * A search whose hits are whole rounds, one each (BM25 over rounds, similar words): its first `pool`
 * hits are the ranking, so it is not asked for more (the search is exact, so they are the same ones).
 */
function ranksWholeRounds(search: PlannedSearch, options: NormalizedRetrievalOptions): boolean {
  if (options.granularity !== 'round') return false;
  return search.source === 'similar-words' || (search.source === 'bm25' && options.bm25Over === 'round');
}

function textOf(query: EncodedQuery, input: QueryInput): string | undefined {
  if (input === 'question') return query.text.trim() || undefined;
  if (input === 'picture-words') return query.pictureWords?.text;
  if (input === 'caption-anchor') return query.captionAnchor?.text;
  return undefined;
}

function vectorOf(query: EncodedQuery, input: QueryInput): Float32Array | undefined {
  switch (input) {
    case 'question':
      return query.questionVector;
    case 'content':
      return query.contentVector;
    case 'picture-words':
      return query.pictureWords?.vector;
    case 'caption-anchor':
      return query.captionAnchor?.vector;
    default:
      return undefined;
  }
}

/** BM25 hits that match only words nearly every round holds score a sliver of the best; they are no evidence. */
function aboveFloor(hits: LaneHit[], floor: number): LaneHit[] {
  const best = hits[0]?.score ?? 0;
  return floor > 0 ? hits.filter((hit) => hit.score >= floor * best) : hits;
}

/**
 * The text lane searched with the stored vector of the best image match's caption, or of the turn
 * that shared it: the conversation about a matched picture often never repeats its caption's words
 * in the question, but it does talk about the same thing.
 */
function echoSearch(view: IndexView, imageHits: readonly LaneHit[], limit: number, accept: AcceptRound | undefined): LaneHit[] {
  const best = imageHits[0];
  const image = best && view.unit(best.unitId);
  if (!best || !image?.imageId) return [];
  const vector = view.textVector(captionUnitId(image.imageId)) ?? view.textVector(textUnitId(best.roundId, image.role));
  return vector ? view.dense(vector, limit, accept) : [];
}

const PICTURE_WORDS = /\b(?:images?|photos?|photographs?|pictures?|pics?|snapshots?|screenshots?|selfies?|show(?:s|ed|n)?|look(?:s|ed)?\s+like)\b/gi;

/** A past-tense question asks what was done: "What did I do last weekend?", "Where was I a week ago?". */
const PAST_QUESTION = /\b(?:did|was|were|had|went|got|made|took|saw|visited|happened|ago|yesterday|last)\b/i;
const DAY = 86_400_000;
/** People tell of an event in the days after it: rounds up to a week after a span are half inside it. */
const TOLD_AFTER = 7 * DAY;

/**
 * Rounds inside a time the question names ("in May 2023", "last weekend") rank above the rest, in
 * their fused order: the date narrows where to look more sharply than any word. A round inside the
 * span gets the best fused score on top of its own; one told in the week after it (or the day
 * before), or inside a vague phrase's window ("recently"), gets half that. A past-tense question
 * prefers what was done over what was planned: a round that only plans gets half its share.
 */
function preferTimes(view: IndexView, fused: readonly FusedCandidate[], spans: readonly TimeSpan[], question: string, now: number): FusedCandidate[] {
  const pastTense = PAST_QUESTION.test(question);
  const top = fused[0]?.fusedScore ?? 0;
  const share = (round: HistoryRound): number => {
    let best = 0;
    for (const span of spans) {
      const weight = span.soft ? 0.5 : 1;
      const at = round.timestamp;
      if (at >= span.start && at < span.end) best = Math.max(best, weight);
      else if (!span.soft && ((at >= span.end && at < Math.min(span.end + TOLD_AFTER, Math.max(now, span.end))) || (at >= span.start - DAY && at < span.start))) best = Math.max(best, weight / 2);
    }
    const planned = best > 0 && pastTense && round.onlyPlans === true;
    return planned ? best / 2 : best;
  };
  return fused
    .map((candidate) => {
      const round = roundAt(view, candidate.key);
      const weight = round ? share(round) : 0;
      return weight > 0 ? { ...candidate, fusedScore: candidate.fusedScore + weight * top } : candidate;
    })
    .sort((a, b) => beyondRounding(b.fusedScore - a.fusedScore));
}

function select(view: IndexView, plan: QueryPlan, ranked: readonly FusedCandidate[], admit: AcceptRound | undefined): ContextSelection {
  const { rule, radius, neighbourShare, sessionShare } = plan.context;
  if (rule === 'scored') {
    const evidence = new Map(ranked.map((candidate) => [candidate.key, candidate.fusedScore]));
    return selectScored(view.history, view.indexOf, plan.k, { evidence, radius, neighbourShare, sessionShare, sessionPositions: view.sessionPositions, ...(admit ? { admit } : {}) });
  }
  const hits = ranked.slice(0, plan.k).map((candidate) => candidate.key);
  const found = new Set(ranked.map((candidate) => candidate.key));
  const evidenceOnly = rule === 'evidence-window';
  const window = withNeighbours(hits, view.history, view.indexOf, radius, (roundId) => (!evidenceOnly || found.has(roundId)) && (!admit || admit(roundId)));
  return { hits, context: window.neighbourOf };
}

type ResultBase = Pick<RetrievalResult, 'case' | 'route' | 'queryText' | 'captionAnchor' | 'imageKeywords' | 'imageMatch' | 'warnings'>;
type UnitResultBase = ResultBase & Pick<RetrievalResult, 'confidence' | 'relevant'>;

/**
 * The result of the selected rounds: not relevant when no hit reaches `minConfidence`. With
 * `dropWeakHits`, hits under it leave the result for `candidates`, with the context rounds that came
 * only for them, so a result that is not relevant holds no rounds. Confidence reads the words of the
 * best rounds, so it is scored once they are read (`assemble`).
 */
function roundResult(
  view: IndexView,
  plan: QueryPlan,
  ranked: readonly FusedCandidate[],
  selection: ContextSelection,
  scoreWith: (roundText: RoundText) => Confidence,
  { minConfidence, dropWeakHits, explainConfidence }: Pick<NormalizedRetrievalOptions, 'minConfidence' | 'dropWeakHits' | 'explainConfidence'>,
  base: ResultBase & Pick<RetrievalResult, 'timeSpans'>,
): RankedPlan {
  const candidateOf = new Map(ranked.map((candidate) => [candidate.key, candidate]));
  const targetsImages = plan.route.target === 'image';
  const imagesOfHits = (hitIds: readonly string[]) =>
    targetsImages ? imagesOfTopRounds(view, hitIds.map((roundId) => candidateOf.get(roundId)!)) : imagesOfRounds(view, hitIds);
  const blocks = toBlocks(new Set([...selection.hits, ...selection.context.keys()]), view.history, view.indexOf);
  const roundIds = new Set([
    ...blocks.flatMap((block) => block.rounds.map((round) => round.id)),
    ...imagesOfHits(selection.hits).map((image) => image.roundId),
    ...ranked.slice(0, WORDS_READ_OF_BEST_ROUNDS).map((candidate) => candidate.key),
  ]);
  return {
    roundIds: [...roundIds],
    assemble: (roundOf) => {
      const confidence = scoreWith((roundId) => {
        const round = roundOf(roundId);
        return round && `${round.user.text}\n${round.assistant.text}`;
      });
      const entries: TraceEntry[] = selection.hits.map((roundId, index) => {
        const candidate = candidateOf.get(roundId)!;
        const hits = candidate.votes.map((vote) => toTraceHit(view, vote));
        return { roundId, rank: index + 1, fusedScore: candidate.fusedScore, hits, neighbour: false, confidence: confidence.ofRound(roundId) };
      });
      const strong = (entry: TraceEntry) => entry.confidence! >= minConfidence;
      const kept = dropWeakHits ? entries.filter(strong) : entries;
      const dropped = dropWeakHits ? entries.filter((entry) => !strong(entry)) : [];
      const keptIds = new Set(kept.map((entry) => entry.roundId));
      const trace: TraceEntry[] = kept.map((entry, index) => ({ ...entry, rank: index + 1 }));
      for (const [roundId, sources] of selection.context) {
        const ofKept = sources.filter((source) => keptIds.has(source));
        // Context stays while a hit it came for stays (a session's context with no hit named stays with any hit).
        if (ofKept.length > 0 || (sources.length === 0 && kept.length > 0)) trace.push({ roundId, fusedScore: 0, hits: [], neighbour: true, neighbourOf: ofKept });
      }
      const shown: Block[] = toBlocks(new Set(trace.map((entry) => entry.roundId)), view.history, view.indexOf)
        .map((block) => ({ sessionId: block.sessionId, rounds: block.rounds.flatMap((round) => roundOf(round.id) ?? []) }))
        .filter((block) => block.rounds.length > 0);
      const images = imagesOfHits(kept.map((entry) => entry.roundId)).flatMap(({ roundId, imageId }) => {
        const round = roundOf(roundId);
        return round ? imagesOf(round).filter((image) => image.id === imageId) : [];
      });
      const result: RetrievalResult = {
        ...base,
        confidence: entries.length === 0 ? 0 : Math.max(...entries.map((entry) => entry.confidence!)),
        relevant: entries.some(strong),
        blocks: shown,
        images,
        trace,
        ...(dropped.length > 0 ? { candidates: dropped } : {}),
      };
      if (!explainConfidence) return result;
      const closeness = Object.fromEntries(selection.hits.map((roundId) => [roundId, confidence.closenessOf(roundId)]));
      return Object.assign(result, { [CONFIDENCE_FEATURES]: { features: confidence.features, closeness } });
    },
  };
}

/** A round's words (both turns), once it is read; undefined for a round not read. */
type RoundText = (roundId: string) => string | undefined;

/** A picture a result shows, by id: the round it is in and its id. */
interface ImageChoice {
  readonly roundId: string;
  readonly imageId: string;
}

/** For image targets: each top round's images, the one a signal matched first; else its neighbours'. */
function imagesOfTopRounds(view: IndexView, hits: readonly FusedCandidate[]): ImageChoice[] {
  const out: ImageChoice[] = [];
  const seen = new Set<string>();
  const push = (roundId: string) => (image: { readonly id: string }) => {
    if (!seen.has(image.id)) {
      seen.add(image.id);
      out.push({ roundId, imageId: image.id });
    }
  };
  for (const candidate of hits) {
    const round = roundAt(view, candidate.key);
    if (!round) continue;
    if (round.images.length > 0) {
      const matched = new Set(candidate.votes.map((vote) => view.unit(vote.unitId)?.imageId).filter(Boolean));
      [...round.images].sort((a, b) => Number(matched.has(b.id)) - Number(matched.has(a.id))).forEach(push(round.id));
      continue;
    }
    const at = view.indexOf.get(round.id)!;
    for (const neighbour of [view.history[at - 1], view.history[at + 1]]) {
      if (neighbour && neighbour.sessionId === round.sessionId) neighbour.images.forEach(push(neighbour.id));
    }
  }
  return out;
}

/** For text targets: the hit rounds' own images, in rank order (context rounds' pictures are context, not answers). */
function imagesOfRounds(view: IndexView, roundIds: readonly string[]): ImageChoice[] {
  return roundIds.flatMap((id) => {
    const round = roundAt(view, id);
    return round ? round.images.map((image) => ({ roundId: id, imageId: image.id })) : [];
  });
}

function unitResult(view: IndexView, fused: readonly FusedCandidate[], base: UnitResultBase): RankedPlan {
  const picked: (UnitInfo & { readonly unitId: string })[] = [];
  for (const candidate of fused) {
    const info = view.unit(candidate.key);
    if (info) picked.push({ unitId: candidate.key, ...info });
  }
  const blocks = toBlocks(new Set(picked.map((unit) => unit.roundId)), view.history, view.indexOf);
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
  return {
    roundIds: blocks.flatMap((block) => block.rounds.map((round) => round.id)),
    assemble: (roundOf) => {
      const units: ReturnedUnit[] = [];
      const images: ImageRef[] = [];
      for (const unit of picked) {
        const round = roundOf(unit.roundId);
        if (!round) continue;
        const image = unit.imageId === undefined ? undefined : imagesOf(round).find((candidate) => candidate.id === unit.imageId);
        units.push({ unitId: unit.unitId, roundId: unit.roundId, kind: unit.kind, text: unitText(round, unit, image), ...(unit.imageId ? { imageId: unit.imageId } : {}) });
        if (image && !images.some((known) => known.id === image.id)) images.push(image);
      }
      const kept = blocks.map((block) => ({ sessionId: block.sessionId, rounds: block.rounds.flatMap((round) => roundOf(round.id) ?? []) })).filter((block) => block.rounds.length > 0);
      return { ...base, blocks: kept, images, trace, units };
    },
  };
}

/** What a unit indexes, read from its round: a turn's text, a caption, or a derived description (an image unit has none). */
function unitText(round: StoredRound, unit: UnitInfo & { readonly unitId: string }, image: ImageRef | undefined): string {
  if (unit.kind === 'text') return round[unit.unitId.endsWith('#assistant') ? 'assistant' : 'user'].text;
  if (unit.kind === 'caption') return image?.caption ?? '';
  if (unit.kind === 'derived') return image?.derived?.text ?? '';
  return '';
}

function toTraceHit(view: IndexView, vote: FusedCandidate['votes'][number]): TraceHit {
  const unitKind = view.unit(vote.unitId)?.kind;
  return { lane: vote.lane, signal: vote.signal, rank: vote.rank, score: vote.score, unitId: vote.unitId, ...(unitKind ? { unitKind } : {}) };
}

function roundAt(view: IndexView, roundId: string): HistoryRound | undefined {
  const at = view.indexOf.get(roundId);
  return at === undefined ? undefined : view.history[at];
}
