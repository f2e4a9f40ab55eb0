import type { RetrievalCase, Route } from '../types.js';

/*
 * Keyword rules on the question alone. They are general English patterns: which words ask for a
 * picture as the answer, which ask to count or gather, which ask to check a statement. They are
 * judged on dialogues nobody has seen, so no phrase of any one data set belongs here.
 */

const IMAGE_NOUN = String.raw`(?:images?|photos?|photographs?|pictures?|pics?|snapshots?|screenshots?|selfies?|drawings?|illustrations?|sketch(?:es)?|paintings?|posters?|shots?|imgs?)`;
const FILLER = String.raw`(?:(?:the|a|an|any|all|one|ones|of|my|our|your|his|her|their|its|this|that|these|those|me|us|exact|specific|same|other|\w+'s|\w+)\s+){0,4}?`;
// A word that asks for something to be picked out or shown.
const SELECTOR = String.raw`(?:which|what|find|search(?:\s+for)?|look(?:ing)?\s+(?:for|up)|show|retrieve|fetch|get|locate|display|send|give|share|pull\s+up|bring\s+up|point\s+(?:me\s+)?to|identify|pick|select)`;

/** "which photo…", "show me the picture of…", "find the chatbot image…": a picture is the answer. */
const ASKS_FOR_IMAGE = new RegExp(String.raw`\b${SELECTOR}\s+${FILLER}${IMAGE_NOUN}\b`, 'i');
/** "how many photos…", "number of pictures…": counting pictures also targets the image lane. */
const COUNTS_IMAGES = new RegExp(String.raw`\b(?:how\s+many|number\s+of|count(?:\s+the)?)\s+(?:\w+\s+){0,2}?${IMAGE_NOUN}\b`, 'i');
/** The image noun names the attached query picture, not the answer: "the dog in the attached photo". */
const QUERY_IMAGE_REFERENCE = new RegExp(
  String.raw`\b(?:(?:attached|provided|given|uploaded|following|enclosed|this)\s+|(?:in|on|inside|within|from)\s+(?:the|this|that|my)\s+)${IMAGE_NOUN}\b`,
  'i',
);

const COUNTING = /\b(?:how\s+many|how\s+much|how\s+often|number\s+of|count\b|tally|total\s+(?:number|count))/i;

/*
 * V-Mem's aggregation triggers (Appendix B): "how many…", "list…", "in what ways…". A question that
 * gathers across the history gets a wider k and no context rounds.
 */
const AGGREGATION_PATTERNS: readonly RegExp[] = [
  /\bhow\s+many\b/i,
  /^\s*(?:(?:please|can\s+you|could\s+you|would\s+you)\s+)*list\b/i,
  /\blist\s+(?:out\s+)?(?:all|every|each|the|of|some|any|what|which|everything)\b/i,
  /\bin\s+what\s+ways?\b/i,
];

const CONFLICT_PATTERNS: readonly RegExp[] = [
  /\bconflicts?\b|\bconflicting\b/i,
  /\bcontradict(?:s|ed|ing|ion|ions|ory)?\b/i,
  /\b(?:in)?consisten(?:t|cy|cies)\b/i,
  /\b(?:is|was)\s+(?:it|this|that)\s+(?:true|correct|accurate|right)\s+that\b/i,
  /\b(?:does|do|did)\s+(?:this|that|the\s+following)\s+(?:statement|information|claim|fact)\s+(?:agree|match|hold|fit)\b/i,
  /\b(?:true\s+or\s+false|fact[-\s]?check|verify\s+(?:whether|if|that))\b/i,
];

/**
 * Decides the retrieval route from the question and whether an image is attached.
 * @example route('Which photo showed the cat?', false) // → { target: 'image', queryModality: 'text', … }
 */
export function route(question: string, hasImage: boolean): Route {
  const text = question.normalize('NFKC');
  const counting = COUNTING.test(text);
  const countsImages = COUNTS_IMAGES.test(text);
  const asksForImage = countsImages || asksForPicture(text);
  const aggregation = AGGREGATION_PATTERNS.some((pattern) => pattern.test(text));
  return {
    queryModality: hasImage ? 'text+image' : 'text',
    target: asksForImage ? 'image' : 'text',
    counting,
    aggregation,
    conflict: CONFLICT_PATTERNS.some((pattern) => pattern.test(text)),
  };
}

/** "Among the pictures we shared, which one…": the pick is one of those pictures. */
const PICKS_AMONG_IMAGES = new RegExp(String.raw`\b(?:among|of|from)\s+(?:the|these|those|all(?:\s+the)?|my|our|your)\s+(?:\w+\s+){0,2}?${IMAGE_NOUN}\b[^?]*?\bwhich\s+ones?\b`, 'i');

function asksForPicture(text: string): boolean {
  if (PICKS_AMONG_IMAGES.test(text)) return true;
  const match = ASKS_FOR_IMAGE.exec(text);
  if (!match) return false;
  // "What breed is the dog in the attached photo?" names the query picture, not a picture to find.
  return !QUERY_IMAGE_REFERENCE.test(match[0]);
}

/** The case a route falls in: query modality → target modality. */
export function retrievalCase(routeDecision: Route): RetrievalCase {
  if (routeDecision.queryModality === 'text') return routeDecision.target === 'image' ? 'text-to-image' : 'text-to-text';
  return routeDecision.target === 'image' ? 'image+text-to-image' : 'image+text-to-text';
}
