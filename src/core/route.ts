import type { RetrievalCase, Route } from '../types.js';

/*
 * Keyword rules on the question alone. They are general English patterns: which words ask for a
 * picture as the answer, which ask to count or gather, which ask to check a statement. They are
 * judged on dialogues nobody has seen, so no phrase of any one data set belongs here; the phrasings
 * they are tested on (testing/route-phrasings.ts) were written from how people ask, not from a data set.
 */

/** Nouns that name a picture wherever they stand: "the cat photo", "pictures from the beach". */
const PICTURE_NOUN = String.raw`(?:images?|photos?|photographs?|pictures?|pics?|snapshots?|screenshots?|selfies?|imgs?|snaps)`;
/** Nouns that name a picture only when a question asks for one ("show me the drawing"): alone they are often something else. */
const ASKED_PICTURE_NOUN = String.raw`(?:${PICTURE_NOUN}|drawings?|illustrations?|sketch(?:es)?|paintings?|posters?|shots?)`;
const FILLER = String.raw`(?:(?:the|a|an|any|all|one|ones|of|my|our|your|his|her|their|its|this|that|these|those|me|us|exact|specific|same|other|\w+'s|\w+)\s+){0,4}?`;
// A word that asks for something to be picked out or shown.
const SELECTOR = String.raw`(?:which|what|find|search(?:\s+for)?|look(?:ing)?\s+(?:for|up)|show|retrieve|fetch|get|locate|display|send|give|share|pull\s+up|bring\s+up|dig\s+up|point\s+(?:me\s+)?to|identify|pick|select)`;

/** "show me the drawing…", "which sketch…": a picture is the answer. */
const ASKS_FOR_PICTURE = new RegExp(String.raw`\b${SELECTOR}\s+${FILLER}${ASKED_PICTURE_NOUN}\b`, 'i');
const NAMES_PICTURE = new RegExp(String.raw`\b${PICTURE_NOUN}\b`, 'gi');
/** Idioms and compounds where the noun is no picture: "the big picture", "a picture frame", "her public image". */
const NOT_A_PICTURE = new RegExp(
  String.raw`\b(?:big\s+picture|picture\s+(?:frames?|books?|perfect)|in\s+the\s+picture\s+(?:about|on)\b|(?:self|public|brand|body|mirror|disk|docker|container|system)[\s-]+images?|images?\s+(?:processing|recognition|classification|model|models|editor|editing|file\s+format)|photo\s+(?:ids?|booth\s+rental))`,
  'gi',
);
/** How something looked: "what did my cat look like?", "how did the cake turn out looking", "its appearance". */
const ASKS_HOW_IT_LOOKED = /\b(?:look(?:s|ed|ing)?\s+like|what\s+(?:\w+\s+){0,5}?look(?:s|ed)?\b(?!\s+(?:for|up|into|after|at|forward))|how\s+(?:did|does|do|will)\s+(?:\w+\s+){0,4}?look\b(?!\s+(?:for|up|into|at|forward|through|over))|appearance\b)/i;
/**
 * The picture named is the one attached to the question, not one to find: "the dog in this photo",
 * "the attached picture". "In the photo I sent you in May" names a stored one.
 */
const QUERY_PICTURE = new RegExp(
  String.raw`\b(?:(?:the\s+|this\s+)?(?:attached|provided|given|uploaded|following|enclosed|above|current|new)\s+${ASKED_PICTURE_NOUN}|this\s+${ASKED_PICTURE_NOUN}|(?:in|on|inside|within|from|of|about)\s+(?:the|this)\s+${ASKED_PICTURE_NOUN}\b(?!\s+(?:(?:that|which)\s+)?(?:i|you|we|he|she|they)\s))`,
  'gi',
);
/** With a picture attached, its own likeness is asked about: "what does this look like?", "how does it look". */
const LIKENESS_OF_QUERY = /\b(?:(?:this|it|that)\s+looks?\s+like|does\s+(?:this|it|that)\s+look)\b/i;
/** With a picture attached: asks for stored pictures like it ("have I shown you one like this?", "anything similar"). */
const ASKS_FOR_SIMILAR = /\b(?:(?:looks?|looked)\s+like\s+(?:this|it|that)|similar|same\s+(?:\w+\s+){0,3}?as\s+(?:this|it|that)|(?:like|resembl\w*)\s+this\s+(?:one)?)\b/i;

/**
 * Counting needs a count to be asked for: "how many", "number of times", "how often", "count the".
 * "How much" asks for an amount; "policy number" or "the number of my room" names an identifier.
 */
const COUNTING: readonly RegExp[] = [
  /\bhow\s+many\b/i,
  /\bhow\s+often\b/i,
  /\bnumber\s+of\s+times\b/i,
  /\b(?:the|a|total|exact|overall|what|same|that|this|bigger|smaller|higher|lower|combined)\s+number\s+of\s+(?!(?:my|your|his|her|our|their|the|this|that|its)\b)/i,
  /\bcount(?:ing)?\s+(?:up\s+)?(?:the|all|every|how|of)\b/i,
  /\b(?:total|overall)\s+count\b|\bthe\s+count\s+of\b|\btally\b/i,
];

/*
 * V-Mem's aggregation triggers (Appendix B): "how many…", "list…", "in what ways…". A question that
 * gathers across the history gets a wider k and no context rounds.
 */
const AGGREGATION_PATTERNS: readonly RegExp[] = [
  /\bhow\s+many\b/i,
  /^\s*(?:(?:please|can\s+you|could\s+you|would\s+you|hey|ok(?:ay)?)[\s,]+)*list\b/i,
  /\blist\s+(?:out\s+)?(?:all|every|each|the|of|some|any|what|which|everything|my|our)\b/i,
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
 * @example route('cat photo', false) // → { target: 'image', queryModality: 'text', … }
 */
export function route(question: string, hasImage: boolean): Route {
  const text = question.normalize('NFKC');
  return {
    queryModality: hasImage ? 'text+image' : 'text',
    target: asksForPicture(text, hasImage) ? 'image' : 'text',
    counting: COUNTING.some((pattern) => pattern.test(text)),
    aggregation: AGGREGATION_PATTERNS.some((pattern) => pattern.test(text)),
    conflict: CONFLICT_PATTERNS.some((pattern) => pattern.test(text)),
  };
}

/**
 * A picture is the answer when the question names one ("cat photo", "the picture from the beach"),
 * asks for one ("show me the drawing"), or asks how something looked. With a picture attached, the
 * words that name that picture ("the dog in this photo") do not count, nor does asking how the
 * attached picture looks; asking for stored ones like it does.
 */
function asksForPicture(text: string, hasImage: boolean): boolean {
  let rest = text.replace(NOT_A_PICTURE, ' ');
  if (hasImage) {
    if (ASKS_FOR_SIMILAR.test(rest)) return true;
    rest = rest.replace(QUERY_PICTURE, ' ');
    if (LIKENESS_OF_QUERY.test(rest)) return false;
  }
  return new RegExp(NAMES_PICTURE.source, 'i').test(rest) || ASKS_FOR_PICTURE.test(rest) || ASKS_HOW_IT_LOOKED.test(rest);
}

/** The case a route falls in: query modality → target modality. */
export function retrievalCase(routeDecision: Route): RetrievalCase {
  if (routeDecision.queryModality === 'text') return routeDecision.target === 'image' ? 'text-to-image' : 'text-to-text';
  return routeDecision.target === 'image' ? 'image+text-to-image' : 'image+text-to-text';
}
