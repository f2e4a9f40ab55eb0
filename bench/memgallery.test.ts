import { describe, expect, it } from 'vitest';
import { VmemError } from 'vmem';
import { imageIdsInAnswer, MEMGALLERY_EMPTY_CLUE, parseIsoDay, parseMemGalleryFile } from './memgallery.js';

/** A two-session dialogue in the Mem-Gallery format, with one image and four kinds of question. */
function tinyDialogue(): unknown {
  return {
    character_profile: { name: 'Ada' },
    multi_session_dialogues: [
      {
        session_id: 'D1',
        date: '2024-06-17',
        dialogues: [
          { round: 'D1:1', user: 'I adopted a cat.', assistant: 'Lovely! What is its name?' },
          { round: 'D1:2', user: 'Here she is.', assistant: 'What a fluffy cat.', image_id: ['D1:IMG_001'], input_image: ['../x.png'], image_caption: ['A grey cat on a sofa'] },
        ],
      },
      { session_id: 'D2', date: '2024-07-01', dialogues: [{ round: 'D2:1', user: 'I bought a bike.', assistant: 'Nice, which one?' }] },
    ],
    'human-annotated QAs': [
      { point: 'FR', question: 'What pet did Ada adopt?', answer: 'A cat.', session_id: ['D1'], clue: ['D1:1'] },
      { point: 'VS', question: 'Which image shows the cat?', answer: 'D1:IMG_001', session_id: ['D1'], clue: ['D1:2'] },
      { point: 'AR', question: 'Did Ada mention a dog?', answer: 'Not mentioned.', session_id: ['D1'], clue: [] },
      { point: 'TTL', question: 'What animal is this?', question_image: '../q.png', image_caption: 'A grey cat', answer: 'Cat', session_id: ['D1'], clue: ['D1:2', 'D9:9'] },
    ],
  };
}

describe('parseMemGalleryFile', () => {
  it('turns dialogue entries into rounds with session dates and caption-only images', () => {
    const { conversation } = parseMemGalleryFile('/data/Pets.json', tinyDialogue());
    expect(conversation.id).toBe('Pets');
    expect(conversation.rounds.map((r) => [r.id, r.sessionId])).toEqual([
      ['D1:1', 'D1'],
      ['D1:2', 'D1'],
      ['D2:1', 'D2'],
    ]);
    expect(conversation.rounds[2]?.timestamp).toBe(Date.UTC(2024, 6, 1));
    expect(conversation.rounds[1]?.user.images).toEqual([{ id: 'D1:IMG_001', caption: 'A grey cat on a sofa' }]);
  });

  it('excludes questions without clue, counts them, and keeps the gold of the others', () => {
    const { conversation, counts } = parseMemGalleryFile('/data/Pets.json', tinyDialogue());
    expect(counts.total).toBe(4);
    expect(counts.scored).toBe(3);
    expect(counts.excluded).toEqual({ [MEMGALLERY_EMPTY_CLUE]: 1 });
    expect(conversation.questions.map((q) => q.category)).toEqual(['FR', 'VS', 'TTL']);
    expect(conversation.questions[1]?.goldImages).toEqual(['D1:IMG_001']);
    expect(conversation.questions[0]?.goldImages).toBeUndefined();
  });

  it('asks a question image as a caption-only image and drops clue ids the dialogue lacks', () => {
    const { conversation, counts } = parseMemGalleryFile('/data/Pets.json', tinyDialogue());
    const ttl = conversation.questions[2];
    expect(ttl?.query).toEqual({ text: 'What animal is this?', image: { caption: 'A grey cat' } });
    expect(ttl?.goldRounds).toEqual(['D1:2']);
    expect(counts.evidenceIds).toEqual({ total: 4, malformed: 0, missing: 1 });
  });

  it('names the file and field when the data has the wrong shape', () => {
    const broken = tinyDialogue() as { multi_session_dialogues: { date: unknown }[] };
    (broken.multi_session_dialogues[1] as { date: unknown }).date = '07/01/2024';
    expect(() => parseMemGalleryFile('/data/Pets.json', broken)).toThrow(/Pets\.json: multi_session_dialogues\[1\]\.date is "07\/01\/2024"/);
    expect(() => parseMemGalleryFile('/data/Pets.json', [])).toThrow(VmemError);
  });
});

describe('parseIsoDay', () => {
  it('reads YYYY-MM-DD as UTC midnight and refuses impossible days', () => {
    expect(parseIsoDay('2024-02-29', 'x')).toBe(Date.UTC(2024, 1, 29));
    expect(() => parseIsoDay('2023-02-29', 'x')).toThrow(VmemError);
  });
});

describe('imageIdsInAnswer', () => {
  it('lists image ids of an id answer and nothing for other answers', () => {
    expect(imageIdsInAnswer('D2:IMG_003, D2:IMG_004')).toEqual(['D2:IMG_003', 'D2:IMG_004']);
    expect(imageIdsInAnswer('3')).toBeUndefined();
    expect(imageIdsInAnswer('The picture D2:IMG_003')).toBeUndefined();
  });
});
