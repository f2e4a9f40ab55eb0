import { describe, expect, it } from 'vitest';
import { routePhrasings, type RoutePhrasing } from './testing/route-phrasings.js';
import { retrievalCase, route } from './route.js';

const PHRASINGS = routePhrasings();

/** Precision and recall of one flag over the phrasings. */
function precisionRecall(flag: (phrasing: RoutePhrasing, decided: ReturnType<typeof route>) => [got: boolean, expected: boolean]) {
  let truePositives = 0;
  let falsePositives = 0;
  let falseNegatives = 0;
  for (const phrasing of PHRASINGS) {
    const [got, expected] = flag(phrasing, route(phrasing.question, phrasing.hasImage));
    if (got && expected) truePositives++;
    else if (got) falsePositives++;
    else if (expected) falseNegatives++;
  }
  return { precision: truePositives / (truePositives + falsePositives), recall: truePositives / (truePositives + falseNegatives), positives: truePositives + falseNegatives };
}

describe('route', () => {
  it('has at least 150 everyday phrasings of each case', () => {
    for (const theCase of ['text-to-text', 'text-to-image', 'image+text-to-text', 'image+text-to-image']) {
      expect(PHRASINGS.filter((phrasing) => phrasing.case === theCase).length).toBeGreaterThanOrEqual(150);
    }
  });

  it.each([
    ['image target', (p: RoutePhrasing, d: ReturnType<typeof route>): [boolean, boolean] => [d.target === 'image', p.case.endsWith('-image')]],
    ['counting', (p: RoutePhrasing, d: ReturnType<typeof route>): [boolean, boolean] => [d.counting, p.counting]],
    ['aggregation', (p: RoutePhrasing, d: ReturnType<typeof route>): [boolean, boolean] => [d.aggregation, p.aggregation]],
    ['conflict', (p: RoutePhrasing, d: ReturnType<typeof route>): [boolean, boolean] => [d.conflict, p.conflict]],
  ] as const)('flags %s with precision and recall of at least 0.95 over the phrasings', (_name, flag) => {
    const { precision, recall, positives } = precisionRecall(flag);
    expect(positives).toBeGreaterThanOrEqual(30);
    expect(precision).toBeGreaterThanOrEqual(0.95);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  it('routes every phrasing to its case', () => {
    const misrouted = PHRASINGS.filter((phrasing) => retrievalCase(route(phrasing.question, phrasing.hasImage)) !== phrasing.case).map((phrasing) => phrasing.question);
    // The flags' precision and recall above are the bar; this lists what falls short of it, if anything.
    expect(misrouted.length / PHRASINGS.length).toBeLessThanOrEqual(0.05);
  });

  it.each([
    ['cat photo', false, 'text-to-image'],
    ['What did my cat look like?', false, 'text-to-image'],
    ['What did I say about the big picture for my career?', false, 'text-to-text'],
    ['What breed is the dog in the attached picture?', true, 'image+text-to-text'],
    ['What did I say about the photo I sent you in May?', true, 'image+text-to-image'],
  ] as const)('routes "%s" (image: %s) to %s', (question, image, expected) => {
    expect(retrievalCase(route(question, image))).toBe(expected);
  });

  it('reports the query modality from the attachment alone', () => {
    expect(route('hello', true).queryModality).toBe('text+image');
    expect(route('hello', false).queryModality).toBe('text');
  });

  it.each([
    ['How many cups of coffee did I drink on Monday?', true],
    ['What is the number of books I bought?', true],
    ['How often do I go running?', true],
    ['What did I eat for lunch?', false],
    ['How much food does Chelsea get now?', false],
    ['What is the policy number of my bike insurance?', false],
    ['What is the number of my hotel room?', false],
    ['How many times did I call the bank?', true],
  ])('flags counting in "%s" → %s', (question, counting) => {
    expect(route(question, false).counting).toBe(counting);
  });

  // V-Mem's triggers (Appendix B): "how many…", "list…", "in what ways…".
  it.each([
    ['List all the restaurants I mentioned.', true],
    ['Please list the books the assistant recommended.', true],
    ['Can you list what I bought in May?', true],
    ['How many different countries have I visited?', true],
    ['How many years ago did I move to Berlin?', true],
    ['In what ways did my training plan change?', true],
    ['What hobbies has Maria tried?', false],
    ['Is my shopping list still on the fridge?', false],
    ['Which of all the cafés was my favourite?', false],
    ['What time does my flight leave?', false],
    ['Where did I park the car?', false],
  ])('flags aggregation in "%s" → %s', (question, aggregation) => {
    expect(route(question, false).aggregation).toBe(aggregation);
  });

  it.each([
    ['Does this conflict with what I told you before: I have never been to Spain.', true],
    ['Is it true that I am allergic to peanuts?', true],
    ['Did I contradict myself about my job?', true],
    ['Is that consistent with my earlier plans?', true],
    ['What did I say about Spain?', false],
  ])('flags conflict in "%s" → %s', (question, conflict) => {
    expect(route(question, false).conflict).toBe(conflict);
  });

  it('skips the hypothetical caption only for counting: counting is visible on image routes', () => {
    const decided = route('How many pictures of my garden did I send?', false);
    expect(decided.target).toBe('image');
    expect(decided.counting).toBe(true);
  });
});
