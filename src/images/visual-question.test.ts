import { describe, expect, it } from 'vitest';
import { needsVisualDetail } from './visual-question.js';

describe('needsVisualDetail', () => {
  const visual = [
    'What colour was the sculpture in the park?',
    'What color is my new car?',
    'What does the cabin we rented look like?',
    'How did the cake look at the party?',
    'What was Anna wearing at the wedding?',
    'What was written on the sign outside the bakery?',
    'What does the label on the wine bottle say?',
    'Which brand was the backpack?',
    'What was the logo on his cap?',
    'What shape was the pool?',
    'Was the scarf striped or plain?',
    'What material is the table made of?',
    'How many dogs are in the photo from the beach?',
    'What style is the living room?',
    'What can you see in the background?',
    'What breed is my neighbour’s dog?',
    'What did the mug say?',
  ];
  const verbal = [
    'When is my dentist appointment?',
    'Where does my sister live?',
    'Did I sign up for the marathon?',
    'How many books did I read last year?',
    'What did the doctor say about my knee?',
    'Which restaurant did I recommend to Tom?',
    'What is the name of my new manager?',
    'Remind me what I planned for the weekend.',
  ];
  it.each(visual)('asks for visual detail: %s', (question) => expect(needsVisualDetail(question)).toBe(true));
  it.each(verbal)('asks for what was said: %s', (question) => expect(needsVisualDetail(question)).toBe(false));
});
