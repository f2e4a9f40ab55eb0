import { describe, expect, it } from 'vitest';
import { VmemError } from 'vmem';
import type { EvidenceIdCounts } from './dataset.js';
import { LOCOMO_EXCLUDED, locomoRoundId, mapEvidenceToRounds, pairTurnsIntoRounds, parseLocomoDate, parseLocomoFile, type LocomoTurn } from './locomo.js';

const turn = (speaker: string, diaId: string, text = 'hi'): LocomoTurn => ({ speaker, diaId, text });

describe('parseLocomoDate', () => {
  it('reads "h:mm am/pm on D Month, YYYY" as UTC', () => {
    expect(parseLocomoDate('1:56 pm on 8 May, 2023', 'x')).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(parseLocomoDate('10:04 am on 19 December, 2023', 'x')).toBe(Date.UTC(2023, 11, 19, 10, 4));
  });

  it('puts 12 am at midnight and 12 pm at noon', () => {
    expect(parseLocomoDate('12:05 am on 1 January, 2024', 'x')).toBe(Date.UTC(2024, 0, 1, 0, 5));
    expect(parseLocomoDate('12:05 pm on 1 January, 2024', 'x')).toBe(Date.UTC(2024, 0, 1, 12, 5));
  });

  it('refuses other formats, naming where the date was', () => {
    expect(() => parseLocomoDate('8 May 2023', 'conv-1.session_2_date_time')).toThrow(/conv-1\.session_2_date_time is "8 May 2023"/);
    expect(() => parseLocomoDate('1:56 pm on 8 Mai, 2023', 'x')).toThrow(VmemError);
  });
});

describe('pairTurnsIntoRounds', () => {
  it('pairs each turn with the reply of the other speaker', () => {
    const rounds = pairTurnsIntoRounds([turn('A', 'D1:1'), turn('B', 'D1:2'), turn('A', 'D1:3'), turn('B', 'D1:4')]);
    expect(rounds.map(locomoRoundId)).toEqual(['D1:1+D1:2', 'D1:3+D1:4']);
  });

  it('gives a repeated speaker and a trailing turn rounds of their own', () => {
    const rounds = pairTurnsIntoRounds([turn('A', 'D1:1'), turn('A', 'D1:2'), turn('B', 'D1:3'), turn('A', 'D1:4')]);
    expect(rounds.map(locomoRoundId)).toEqual(['D1:1', 'D1:2+D1:3', 'D1:4']);
  });
});

describe('mapEvidenceToRounds', () => {
  const roundOf = new Map([
    ['D1:1', 'D1:1+D1:2'],
    ['D1:2', 'D1:1+D1:2'],
    ['D2:5', 'D2:5'],
  ]);

  it('maps turn ids to the rounds that hold them, once each', () => {
    const counts: EvidenceIdCounts = { total: 0, malformed: 0, missing: 0 };
    expect(mapEvidenceToRounds(['D1:2', 'D1:1', 'D2:5'], roundOf, counts)).toEqual(['D1:1+D1:2', 'D2:5']);
    expect(counts).toEqual({ total: 3, malformed: 0, missing: 0 });
  });

  it('skips and counts malformed and missing ids, and splits an entry that lists several', () => {
    const counts: EvidenceIdCounts = { total: 0, malformed: 0, missing: 0 };
    expect(mapEvidenceToRounds(['D', 'D:1:2', 'D7:7', 'D1:1; D2:5'], roundOf, counts)).toEqual(['D1:1+D1:2', 'D2:5']);
    expect(counts).toEqual({ total: 5, malformed: 2, missing: 1 });
  });
});

function tinyConversation(): unknown {
  return {
    sample_id: 'conv-x',
    conversation: {
      speaker_a: 'Caroline',
      speaker_b: 'Melanie',
      session_2_date_time: '9:00 am on 9 May, 2023',
      session_2: [{ speaker: 'Melanie', dia_id: 'D2:1', text: 'I ran 5k today.' }],
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Caroline', dia_id: 'D1:1', text: 'I went to a support group.' },
        { speaker: 'Melanie', dia_id: 'D1:2', text: 'Look at my painting.', img_url: ['http://x'], blip_caption: 'a photo of a painting of a lake' },
        { speaker: 'Caroline', dia_id: 'D1:3', text: 'Beautiful!' },
      ],
    },
    qa: [
      { question: 'Where did Caroline go?', answer: 'a support group', evidence: ['D1:1'], category: 4 },
      { question: 'How far did Melanie run?', answer: 5, evidence: ['D2:1', 'D9:1'], category: 2 },
      { question: 'What did Caroline paint?', adversarial_answer: 'a lake', evidence: ['D1:2'], category: 5 },
      { question: 'Broken', answer: 'x', evidence: ['D'], category: 1 },
    ],
  };
}

describe('parseLocomoFile', () => {
  it('builds rounds in session order with speaker names, dates and caption-only images', () => {
    const [parsed] = parseLocomoFile('/data/locomo.json', [tinyConversation()]);
    const rounds = parsed!.conversation.rounds;
    expect(rounds.map((r) => r.id)).toEqual(['D1:1+D1:2', 'D1:3', 'D2:1']);
    expect(rounds[0]?.user.text).toBe('Caroline: I went to a support group.');
    expect(rounds[0]?.assistant?.text).toBe('Melanie: Look at my painting.');
    expect(rounds[0]?.assistant?.images).toEqual([{ id: 'D1:2:image', caption: 'a photo of a painting of a lake' }]);
    expect(rounds[1]?.assistant).toBeUndefined();
    expect(rounds[0]?.timestamp).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(rounds[2]?.timestamp).toBe(Date.UTC(2023, 4, 9, 9, 0));
  });

  it('scores categories 1–4, skips adversarial ones, and counts questions left without evidence', () => {
    const [parsed] = parseLocomoFile('/data/locomo.json', [tinyConversation()]);
    const { questions } = parsed!.conversation;
    expect(questions.map((q) => [q.category, q.goldRounds, q.answer])).toEqual([
      ['single-hop', ['D1:1+D1:2'], 'a support group'],
      ['temporal', ['D2:1'], '5'],
    ]);
    expect(parsed!.counts).toMatchObject({
      total: 4,
      scored: 2,
      excluded: { [LOCOMO_EXCLUDED.adversarial]: 1, [LOCOMO_EXCLUDED.noEvidence]: 1 },
      evidenceIds: { total: 4, malformed: 1, missing: 1 },
    });
  });
});
