import type { FusedCandidate, SignalRanking } from './fusion.js';

/*
 * How sure retrieval is that memory holds what the question asks about, without an LLM. Pure: the
 * signals' rankings, the fused order and the rounds' words in, a probability per hit out.
 *
 * The question's confidence is a logistic model of general features: how well the best round of
 * each signal scores (BM25, similar words as the share of the question's words it matches, dense
 * cosine), how far that best stands out from the rest of its ranking (the image lane's too), whether
 * the signals agree on the best round, how much of the question's content words the best rounds
 * state, and how much of the question's words and of an attached picture's words (its caption, or
 * what was read off it) the memory holds at all. A hit's confidence is the question's, scaled by how
 * close the hit comes to the best round in the signal where it does best, and by the share of the
 * question's words it states rather than only asks (a stored "What did I order?" is weak evidence
 * for the same question). The question's
 * confidence is then its best hit's. The weights come from `bench/fit-confidence.ts`, fitted on
 * the dev sets only (answerable questions against other dialogues' questions and Mem-Gallery's "not
 * mentioned" ones) and judged leave-one-dialogue-out (docs/retrieval.md).
 */

/** The features of one question, in the order of {@link QUESTION_WEIGHTS}. */
export interface QuestionFeatures {
  /** log(1 + the best round's BM25 score). */
  readonly bm25Top: number;
  /** The best round's BM25 score over the sum of the question's word rarities (IDF): how much of the question it matches. */
  readonly bm25Share: number;
  /** The best BM25 score over every round (not only where the question's case lets BM25 vote), over the sum of rarities. */
  readonly bm25Anywhere: number;
  /** Share of the question's words, weighted by rarity, that no round of the memory holds at all. */
  readonly unseen: number;
  /** log(1 + how many of the question's words no round holds). */
  readonly unseenWords: number;
  /** The best round's similar-words score: the share of the question's words (by rarity) it matches, in [0, 1]; NaN without word vectors (the model then reads its mean). */
  readonly similarTop: number;
  /** The best dense cosine (question or content words). */
  readonly denseTop: number;
  /** How far the best dense cosine stands out: best minus the mean of ranks 5–15. */
  readonly denseLead: number;
  /**
   * How far the best image cosine stands out from ranks 5–15; 0 without an attached picture. The
   * cosine itself is left out: its scale is the image encoder's (captions embedded as text in the
   * data it is fitted on, pixels in an app), while how far one picture stands out means the same in both.
   */
  readonly imageLead: number;
  /** Share of the signals whose top 3 hold the fused best round. */
  readonly agreement: number;
  /** Share of the question's content words that the best three rounds state (not only ask), best of the three. */
  readonly stated: number;
  /** The same share counting words in questions too, minus `stated`: what only a question covers. */
  readonly askedOnly: number;
  /** log(1 + the question's content words). */
  readonly contentWords: number;
  /** Share of the attached picture's words (its caption, or what was read off it), by rarity, that no round holds; NaN without picture words. */
  readonly pictureUnseen: number;
  /** The best BM25 score of the picture's words over every round, over the sum of their rarities; NaN without picture words. */
  readonly pictureMatch: number;
  /** 1 when the question comes with a picture. */
  readonly withImage: number;
}

/** The feature names, in model order. */
export const QUESTION_FEATURES: readonly (keyof QuestionFeatures)[] = [
  'bm25Top',
  'bm25Share',
  'bm25Anywhere',
  'unseen',
  'unseenWords',
  'similarTop',
  'denseTop',
  'denseLead',
  'imageLead',
  'agreement',
  'stated',
  'askedOnly',
  'contentWords',
  'pictureUnseen',
  'pictureMatch',
  'withImage',
];

/** A logistic model over the features: bias first, then one weight per feature (on standardised values). */
export interface ConfidenceModel {
  readonly bias: number;
  readonly weights: Readonly<Record<keyof QuestionFeatures, number>>;
  /** Mean and spread of each feature on the data it was fitted on, to standardise with. */
  readonly mean: Readonly<Record<keyof QuestionFeatures, number>>;
  readonly scale: Readonly<Record<keyof QuestionFeatures, number>>;
  /**
   * How fast a hit's confidence falls below the question's as it falls behind the best round in
   * its best signal: confidence × closeness^falloff.
   */
  readonly falloff: number;
}

/** What confidence is computed from. */
export interface ConfidenceInput {
  readonly question: string;
  readonly withImage: boolean;
  readonly rankings: readonly SignalRanking[];
  readonly fused: readonly FusedCandidate[];
  /** A round's words: its user and assistant text. */
  readonly roundText: (roundId: string) => string | undefined;
  /** How many rounds hold each of the question's words, and how many rounds there are. */
  readonly wordFrequencies: WordFrequencies;
  /** The best BM25 score of any round for the question, whatever the case's scopes. */
  readonly bm25Anywhere: number;
  /** The attached picture's words (its caption, or what was read off it), as the question's are given; absent without them. */
  readonly pictureWords?: { readonly wordFrequencies: WordFrequencies; readonly bm25Anywhere: number };
  /** Whether a round lies inside a (not vague) time the question names. */
  readonly inNamedTime?: (roundId: string) => boolean;
}

/** How many rounds hold each of a text's words, and how many rounds there are. */
export interface WordFrequencies {
  readonly frequencies: readonly number[];
  readonly documents: number;
}

/** Confidence of a question and of each round it found. */
export interface Confidence {
  /** The question's: the best found round's confidence. */
  readonly overall: number;
  /** A found round's confidence (0 for a round no signal found). */
  ofRound(roundId: string): number;
  readonly features: QuestionFeatures;
  /** A found round's closeness to the best in its best signal, in [0, 1] (what `falloff` applies to). */
  closenessOf(roundId: string): number;
}

const STOP = new Set(
  `a about above after again all also am an and any are as at be because been before being below between both but by can could did do does doing down during each few for from further had has have having he her here hers him his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours out over own same she should so some such than that the their theirs them then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours ever please tell based conversation mentioned discussed user assistant remember remind said say told talk talked know think thing things like get got go going went one time times did does much many`.split(/\s+/),
);

/** The least confidence of a question whose best round lies inside the time it names. */
export const NAMED_TIME_CONFIDENCE = 0.5;

/** Lower-case content words, crudely stemmed, so "dogs" meets "dog" and "walked" meets "walk". */
export function contentTerms(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((word) => word.length > 2 && !STOP.has(word)).map(stem);
}

/**
 * "-ies" becomes "-y", then the longest of "-ing", "-ed", "-es", "-s" goes; a word that would be left
 * empty stays whole. Suffix tests rather than regular expressions: confidence stems every word of the
 * rounds it reads, on every question.
 */
function stem(word: string): string {
  const base = word.endsWith('ies') ? `${word.slice(0, -3)}y` : word;
  const cut = base.endsWith('ing') ? 3 : base.endsWith('ed') || base.endsWith('es') ? 2 : base.endsWith('s') ? 1 : 0;
  return base.slice(0, base.length - cut) || word;
}

/** Sentences that state something: not ending in a question mark. */
function statedText(text: string): string {
  return (text.match(/[^.!?\n]+[.!?\n]*/g) ?? []).filter((sentence) => !sentence.trim().endsWith('?')).join(' ');
}

/** Where a score stands in its ranking: 1 at the best, 0 at the last candidate the signal kept. */
function closeness(ranking: SignalRanking, score: number): number {
  const candidates = ranking.candidates;
  const top = candidates[0]?.score ?? 0;
  const floor = candidates[candidates.length - 1]?.score ?? 0;
  if (top <= floor) return 1;
  return Math.min(1, Math.max(0, (score - floor) / (top - floor)));
}

function lead(ranking: SignalRanking | undefined): number {
  const candidates = ranking?.candidates ?? [];
  const top = candidates[0]?.score ?? 0;
  const rest = candidates.slice(4, 15);
  if (rest.length === 0) return 0;
  return top - rest.reduce((sum, candidate) => sum + candidate.score, 0) / rest.length;
}

/** How many of the best fused rounds the features read the words of. */
export const WORDS_READ_OF_BEST_ROUNDS = 3;

/** A round's content words, all of them and those its statements hold (not its questions), each read once per question. */
interface RoundTerms {
  all(roundId: string): ReadonlySet<string>;
  stated(roundId: string): ReadonlySet<string>;
}

function roundTerms(roundText: ConfidenceInput['roundText']): RoundTerms {
  const all = new Map<string, ReadonlySet<string>>();
  const stated = new Map<string, ReadonlySet<string>>();
  const read = (cache: Map<string, ReadonlySet<string>>, roundId: string, words: (text: string) => string[]) => {
    let terms = cache.get(roundId);
    if (!terms) cache.set(roundId, (terms = new Set(words(roundText(roundId) ?? ''))));
    return terms;
  };
  return {
    all: (roundId) => read(all, roundId, contentTerms),
    stated: (roundId) => read(stated, roundId, (text) => contentTerms(statedText(text))),
  };
}

/** The features of a question, from its rankings and the words of its best rounds. */
function questionFeatures(input: ConfidenceInput, words: RoundTerms, terms: readonly string[]): QuestionFeatures {
  const bySignal = (signal: SignalRanking['signal']) => input.rankings.filter((ranking) => ranking.signal === signal && ranking.candidates.length > 0);
  const best = (rankings: readonly SignalRanking[]) => rankings.reduce<SignalRanking | undefined>((top, ranking) => (!top || ranking.candidates[0]!.score > top.candidates[0]!.score ? ranking : top), undefined);
  const dense = best(bySignal('dense'));
  const image = best(bySignal('image'));
  const topRound = input.fused[0]?.key;
  const voting = input.rankings.filter((ranking) => ranking.candidates.length > 0);
  const agreeing = topRound === undefined ? 0 : voting.filter((ranking) => ranking.candidates.slice(0, 3).some((candidate) => candidate.key === topRound)).length;
  let stated = 0;
  let asked = 0;
  for (const candidate of input.fused.slice(0, WORDS_READ_OF_BEST_ROUNDS)) {
    if (terms.length > 0) {
      const statedTerms = words.stated(candidate.key);
      const allTerms = words.all(candidate.key);
      stated = Math.max(stated, terms.filter((term) => statedTerms.has(term)).length / terms.length);
      asked = Math.max(asked, terms.filter((term) => allTerms.has(term)).length / terms.length);
    }
  }
  const question = rarities(input.wordFrequencies);
  const picture = input.pictureWords && rarities(input.pictureWords.wordFrequencies);
  const bm25Best = bySignal('bm25')[0]?.candidates[0]?.score ?? 0;
  return {
    bm25Top: Math.log1p(bm25Best),
    bm25Share: question.share(bm25Best),
    bm25Anywhere: question.share(input.bm25Anywhere),
    unseen: question.unseenShare,
    unseenWords: Math.log1p(question.unseenWords),
    // A memory without word vectors has no such signal: unknown, not zero.
    similarTop: input.rankings.some((ranking) => ranking.signal === 'similar-words') ? (bySignal('similar-words')[0]?.candidates[0]?.score ?? 0) : Number.NaN,
    denseTop: dense?.candidates[0]?.score ?? 0,
    denseLead: lead(dense),
    imageLead: lead(image),
    agreement: voting.length === 0 ? 0 : agreeing / voting.length,
    stated,
    askedOnly: Math.max(0, asked - stated),
    contentWords: Math.log1p(terms.length),
    pictureUnseen: picture ? picture.unseenShare : Number.NaN,
    pictureMatch: picture ? picture.share(input.pictureWords!.bm25Anywhere) : Number.NaN,
    withImage: input.withImage ? 1 : 0,
  };
}

/** A text's words weighed by their rarity in the memory (BM25's IDF): how much of them a score or the unseen words make up. */
function rarities({ frequencies, documents }: WordFrequencies): { share(score: number): number; readonly unseenShare: number; readonly unseenWords: number } {
  const rarity = frequencies.map((frequency) => Math.log((documents + 1) / (frequency + 0.5)));
  const total = rarity.reduce((sum, value) => sum + value, 0);
  const unseen = rarity.reduce((sum, value, at) => sum + (frequencies[at] === 0 ? value : 0), 0);
  return {
    share: (score) => (total > 0 ? score / total : 0),
    unseenShare: total > 0 ? unseen / total : 0,
    unseenWords: frequencies.filter((frequency) => frequency === 0).length,
  };
}

/** The model's probability for standardised features; a feature that is not known (NaN) counts as its mean. */
export function questionConfidence(features: QuestionFeatures, model: ConfidenceModel): number {
  let z = model.bias;
  for (const name of QUESTION_FEATURES) {
    if (!Number.isNaN(features[name])) z += model.weights[name] * ((features[name] - model.mean[name]) / (model.scale[name] || 1));
  }
  return 1 / (1 + Math.exp(-z));
}

/**
 * Confidence of a question and of each round it found. With no round found at all, both are 0.
 * @example scoreConfidence({ question, withImage: false, rankings, fused, roundText }, CONFIDENCE_MODEL).overall // 0.93
 */
export function scoreConfidence(input: ConfidenceInput, model: ConfidenceModel): Confidence {
  const words = roundTerms(input.roundText);
  const terms = [...new Set(contentTerms(input.question))];
  const features = questionFeatures(input, words, terms);
  const topKey = input.fused[0]?.key;
  const timed = (roundId: string) => input.inNamedTime?.(roundId) === true;
  // "What did I do yesterday?" has few words to match, but when the best round lies in the time it
  // names, the time is the evidence: such a question is taken as at least even odds.
  const modelled = input.fused.length === 0 ? 0 : questionConfidence(features, model);
  const modelledOverall = topKey !== undefined && timed(topKey) ? Math.max(modelled, NAMED_TIME_CONFIDENCE) : modelled;
  const closenessOf = new Map<string, number>();
  for (const candidate of input.fused) {
    let near = 0;
    for (const vote of candidate.votes) {
      const ranking = input.rankings.find((r) => r.signal === vote.signal && r.candidates[vote.rank - 1]?.key === candidate.key);
      if (ranking) near = Math.max(near, closeness(ranking, vote.score));
    }
    closenessOf.set(candidate.key, timed(candidate.key) ? 1 : near);
  }
  // A round that only asks the question ("What did I order?" stored as a round) is weak evidence for
  // it: its share falls by the part of the question's words that only its questions hold.
  const askingOnly = (roundId: string): number => {
    if (terms.length === 0) return 0;
    const all = words.all(roundId);
    // A round that holds none of the question's words asks none of them either.
    if (!terms.some((term) => all.has(term))) return 0;
    const stated = words.stated(roundId);
    return terms.filter((term) => all.has(term) && !stated.has(term)).length / terms.length;
  };
  const shareOf = (roundId: string) => (roundId === topKey ? 1 : (closenessOf.get(roundId) ?? 0) ** model.falloff) * (1 - askingOnly(roundId));
  const ofRound = new Map(input.fused.map((candidate) => [candidate.key, modelledOverall * shareOf(candidate.key)]));
  const best = Math.max(0, ...ofRound.values());
  return {
    overall: best,
    features,
    closenessOf: (roundId) => (roundId === topKey ? 1 : (closenessOf.get(roundId) ?? 0)),
    ofRound: (roundId) => ofRound.get(roundId) ?? 0,
  };
}
