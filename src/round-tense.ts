/**
 * Whether a turn plans rather than reports ("Next weekend I want to try the climbing gym."): a
 * question in the past tense asks what was done, so such a round counts for less in the time it
 * names. Worked out when a round is stored, since ranking never reads a round's text.
 */

const PLANS = /\b(?:next\s+(?:week|weekend|month|year|time|mon|tues|wednes|thurs|fri|satur|sun)\w*|tomorrow|going\s+to|gonna|plan(?:ning)?\s+(?:to|on)|want\s+to|wanna|hop(?:e|ing)\s+to|would\s+like\s+to|i'?ll|i\s+will|intend\s+to|about\s+to|can'?t\s+wait\s+to|thinking\s+(?:of|about)\s+\w+ing)\b/i;
const REPORTS = /\b(?:went|did|was|were|had|got|saw|made|took|visited|finished|tried|bought|came|ate|met|played|spent|watched|loved|enjoyed)\b/i;

/** @example onlyPlans('Next weekend I want to try the climbing gym.') // true */
export function onlyPlans(text: string): boolean {
  return PLANS.test(text) && !REPORTS.test(text);
}
