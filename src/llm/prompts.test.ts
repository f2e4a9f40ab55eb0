import { describe, expect, it } from 'vitest';
import { errorCode } from '../errors.js';
import type { Block, ImageRef, StoredRound } from '../types.js';
import {
  EMPTY_CONTEXT,
  answerPrompt,
  captionAnchorPrompt,
  cleanCaption,
  conflictPrompt,
  formatContext,
  imageKeywordsPrompt,
  imageNote,
  parseKeywords,
  parseVerdict,
  queryImageNote,
} from './prompts.js';

function round(id: string, seq: number, iso: string, user: string, assistant: string, images: ImageRef[] = []): StoredRound {
  return {
    id,
    seq,
    sessionId: 's',
    timestamp: Date.parse(iso),
    user: { text: user, images },
    assistant: { text: assistant, images: [] },
  };
}

const bike: ImageRef = { id: 'img-7', roundId: 'r2', role: 'user', caption: 'a red bicycle leaning on a fence', hasBytes: true };
const blocks: Block[] = [
  {
    sessionId: 'holiday',
    rounds: [
      round('r1', 1, '2024-05-01T09:15:00Z', 'We land in Lisbon tomorrow.', 'Have a good flight!'),
      round('r2', 2, '2024-05-02T18:40:00Z', 'Rented this bike\n[Image: a red bicycle leaning on a fence]', 'Great colour.', [bike]),
    ],
  },
  { sessionId: 'work', rounds: [round('r9', 9, '2024-06-10T08:00:00Z', 'My manager is Dana.', 'Noted.')] },
];

describe('formatContext', () => {
  it('writes one header per block with session and dates, then rounds in order with speakers and images', () => {
    expect(formatContext(blocks)).toBe(
      [
        '### Session holiday · 2024-05-01 to 2024-05-02',
        '[2024-05-01 09:15]',
        'User: We land in Lisbon tomorrow.',
        'Assistant: Have a good flight!',
        '[2024-05-02 18:40]',
        'User: Rented this bike [Image: a red bicycle leaning on a fence]',
        'Image img-7 (from user): a red bicycle leaning on a fence',
        'Assistant: Great colour.',
        '',
        '### Session work · 2024-06-10',
        '[2024-06-10 08:00]',
        'User: My manager is Dana.',
        'Assistant: Noted.',
      ].join('\n'),
    );
  });

  it('shows times in the requested time zone', () => {
    const text = formatContext([blocks[1] as Block], { timeZone: 'America/Los_Angeles' });
    expect(text).toContain('[2024-06-10 01:00]');
    expect(text).not.toContain('08:00');
  });

  it('says so when nothing was retrieved', () => {
    expect(formatContext([])).toBe(EMPTY_CONTEXT);
  });

  it('marks images without a caption and skips empty turns', () => {
    const bare: ImageRef = { id: 'img-1', roundId: 'r1', role: 'user', hasBytes: true };
    const text = formatContext([{ sessionId: 's', rounds: [round('r1', 1, '2024-01-01T00:00:00Z', '', '', [bare])] }]);
    expect(text).toContain('Image img-1 (from user): (no caption)');
    expect(text).not.toContain('User:');
    expect(text).not.toContain('Assistant:');
  });

  it('refuses an unknown time zone with INVALID_INPUT', () => {
    let code: string | undefined;
    try {
      formatContext(blocks, { timeZone: 'Mars/Olympus' });
    } catch (error) {
      code = errorCode(error);
    }
    expect(code).toBe('INVALID_INPUT');
  });
});

describe('parseKeywords', () => {
  it.each([
    ['red bicycle, fence, street, Lisbon', ['red bicycle', 'fence', 'street', 'Lisbon']],
    ['1. "red bicycle"\n2. fence\n3) Lisbon.', ['red bicycle', 'fence', 'Lisbon']],
    ['- red bicycle\n* fence\n• “Lisbon”', ['red bicycle', 'fence', 'Lisbon']],
    ['Keywords: bike, Bike, BIKE, fence', ['bike', 'fence']],
    ['Here are the keywords for the picture:\n**bike**; fence; 3-pack', ['bike', 'fence', '3-pack']],
    ['  \n , ,', []],
  ])('reads %j', (reply, expected) => {
    expect(parseKeywords(reply)).toEqual(expected);
  });

  it('keeps at most eight keywords by default, as the prompt asks', () => {
    const reply = Array.from({ length: 15 }, (_, i) => `word${i}`).join(', ');
    expect(parseKeywords(reply)).toHaveLength(8);
    expect(parseKeywords(reply, 3)).toEqual(['word0', 'word1', 'word2']);
  });
});

describe('parseVerdict', () => {
  it.each([
    ['Yes. You said you live in Porto.', 'Yes'],
    ['no, you said you are not allergic to it', 'No'],
    ['**No** — the memory says you sold it.', 'No'],
    ['"Yes", because you sold the car in May.', 'Yes'],
    ['Answer: No. You said otherwise.', 'No'],
    ['  YES\nbecause …', 'Yes'],
    ['Not in memory. Nothing mentions peanuts.', 'Not in memory'],
    ['**Not mentioned in the memory**: no word about a dog.', 'Not in memory'],
  ] as const)('reads %j as %s', (reply, expected) => {
    expect(parseVerdict(reply)).toBe(expected);
  });

  it.each(['Yesterday you said otherwise.', 'Nothing conflicts.', 'I think yes.', 'Nothing in memory.', ''])('finds no verdict in %j', (reply) => {
    expect(parseVerdict(reply)).toBeUndefined();
  });
});

describe('conflictPrompt', () => {
  it('gives the question as asked and the memory, and demands a reply starting with the verdict', () => {
    const messages = conflictPrompt({ question: 'Is it true that my manager is Sam?', context: formatContext(blocks) });
    const ask = messages[messages.length - 1];
    expect(ask?.role).toBe('user');
    expect(ask?.content).toContain('Question: Is it true that my manager is Sam?');
    expect(ask?.content).toContain('User: My manager is Dana.');
    expect(ask?.content).toMatch(/exactly as it is asked/);
    expect(ask?.content).toMatch(/"Yes" when the memory supports it and "No" when the memory contradicts it/);
    expect(ask?.content).toMatch(/start your reply with exactly "Yes", "No" or "Not in memory"/i);
    expect(ask?.content).toMatch(/one sentence/i);
  });
});

describe('queryImageNote', () => {
  it('says what the attached picture shows and which stored picture matches it', () => {
    const note = queryImageNote({ shows: 'a red motorcycle.', match: { imageId: 'img-4', caption: 'my new motorbike', date: '2024-05-01' } });
    expect(note).toBe('The question comes with a picture that shows: a red motorcycle. The stored picture most like it is image img-4 from 2024-05-01: my new motorbike.');
    expect(queryImageNote({ match: { imageId: 'img-4' } })).toBe('The question comes with a picture. The stored picture most like it is image img-4.');
    expect(queryImageNote({})).toBe('');
  });

  it('goes into the answer prompt before the question', () => {
    const [, user] = answerPrompt({ question: 'Where did I buy this?', context: 'ctx', queryImageNote: queryImageNote({ shows: 'a blue vase' }) });
    expect(user?.content).toMatch(/shows: a blue vase\.[\s\S]*Question: Where did I buy this\?$/);
  });
});

describe('answerPrompt', () => {
  it('puts memory, today and the question in the user message and asks to stay within memory', () => {
    const messages = answerPrompt({ question: 'Who is my manager?', context: formatContext(blocks), today: Date.parse('2024-07-01T12:00:00Z') });
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    const [system, user] = messages;
    expect(system?.content).toMatch(/only/i);
    expect(system?.content).toMatch(/don't have it in memory/);
    expect(user?.content).toContain('User: My manager is Dana.');
    expect(user?.content).toContain('Today is 2024-07-01.');
    expect(user?.content.trimEnd().endsWith('Question: Who is my manager?')).toBe(true);
    expect(user?.images).toBeUndefined();
  });

  it('attaches images and the note that announces them', () => {
    const images = [{ url: 'data:image/png;base64,AAAA' }, { url: 'data:image/png;base64,BBBB' }];
    const note = imageNote(2, ['img-7', 'img-8']);
    const [, user] = answerPrompt({ question: 'What colour was the bike?', context: 'ctx', imageNote: note, images });
    expect(user?.images).toEqual(images);
    expect(user?.content).toContain(note);
    expect(user?.content).not.toContain('Today is');
  });
});

describe('imageNote', () => {
  it('announces the pictures in order, naming their ids', () => {
    expect(imageNote(0)).toBe('');
    expect(imageNote(1)).toMatch(/^One picture .* attached/);
    const note = imageNote(3, ['a', 'b', 'c']);
    expect(note).toMatch(/^3 pictures .* in order/);
    expect(note).toContain('picture 1 is image a, picture 2 is image b, picture 3 is image c');
  });

  it('refuses a count that does not match the ids', () => {
    expect(() => imageNote(2, ['a'])).toThrow(/one id per attached image/);
    expect(() => imageNote(-1)).toThrow(/whole number/);
  });
});

describe('caption anchor and image keywords prompts', () => {
  it('asks for a caption only, built from the question', () => {
    const [, user] = captionAnchorPrompt('Show me the cake from my birthday');
    expect(user?.content).toContain('Show me the cake from my birthday');
    expect(user?.content).toMatch(/one or two sentences/);
    expect(user?.content).toMatch(/caption only/);
  });

  it('strips a label and quotes from the caption reply', () => {
    expect(cleanCaption('Caption: "A chocolate cake with candles on a kitchen table."\n')).toBe(
      'A chocolate cake with candles on a kitchen table.',
    );
  });

  it('attaches the query image and asks for comma-separated keywords', () => {
    const image = { url: 'data:image/jpeg;base64,/9j/', detail: 'low' as const };
    const [, user] = imageKeywordsPrompt(image, 'Where did I buy this?');
    expect(user?.images).toEqual([image]);
    expect(user?.content).toContain('Where did I buy this?');
    expect(user?.content).toMatch(/at most 8 keywords/);
    expect(user?.content).toMatch(/words someone answering the question would use/);
    expect(user?.content).toMatch(/separated by commas/);
  });
});
