import { describe, expect, it } from 'vitest';
import { retrievalCase, route } from './route.js';

// Our own example questions, phrased the way people ask; none taken from the benchmark data.
const CASES: { question: string; image: boolean; case: string; counting?: boolean; aggregation?: boolean; conflict?: boolean }[] = [
  { question: 'Where did I say my sister lives?', image: false, case: 'text-to-text' },
  { question: 'What did the assistant recommend for my sore knee?', image: false, case: 'text-to-text' },
  { question: 'Which photo showed the cat?', image: false, case: 'text-to-image' },
  { question: 'Show me the picture of the red bicycle I sent last week', image: false, case: 'text-to-image' },
  { question: 'Find the screenshot with the error message', image: false, case: 'text-to-image' },
  { question: 'Which of my pictures were taken at the beach?', image: false, case: 'text-to-image' },
  { question: 'How many photos of sunsets did I share?', image: false, case: 'text-to-image' },
  { question: 'Search for all the pictures of birds I sent', image: false, case: 'text-to-image' },
  { question: 'Of the photos from the hike, which one has the waterfall?', image: false, case: 'text-to-image' },
  { question: 'Among the images I sent in May, which ones show my garden?', image: false, case: 'text-to-image' },
  { question: 'From the photos of the trip, which city did we like most?', image: false, case: 'text-to-text' },
  { question: 'Please look for images of the same flower as this one', image: true, case: 'image+text-to-image' },
  { question: 'Which earlier image shows the same building as this one?', image: true, case: 'image+text-to-image' },
  { question: 'Find the photo I shared that looks like this', image: true, case: 'image+text-to-image' },
  { question: 'What did I say about this photo?', image: true, case: 'image+text-to-text' },
  { question: 'What breed is the dog in the attached picture?', image: true, case: 'image+text-to-text' },
  { question: 'When did we talk about what is in the picture?', image: true, case: 'image+text-to-text' },
  { question: 'What is written on the sign in this image?', image: true, case: 'image+text-to-text' },
];

describe('route', () => {
  it.each(CASES)('routes "$question" (image: $image) to $case', ({ question, image, case: expected }) => {
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
