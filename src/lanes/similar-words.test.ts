import { describe, expect, it } from 'vitest';
import { topicWordVectors } from '../testing/word-vectors.js';
import { SimilarWordsIndex, buildWordsSection, mergeWordsSections, wordRowsId, wordRowsOf, type WordsPart } from './similar-words.js';

describe('SimilarWordsIndex', () => {
  const vectors = topicWordVectors();
  /** Rounds as slots (one section per `put`), with a dead set the index reads. */
  const build = () => {
    const names: string[] = [];
    const dead = new Set<number>();
    const index = new SimilarWordsIndex(vectors, (slot) => dead.has(slot));
    const parts: WordsPart[] = [];
    const put = (roundId: string, text: string) => {
      const old = names.lastIndexOf(roundId);
      if (old >= 0) dead.add(old);
      names.push(roundId);
      const part = { section: buildWordsSection([{ local: 0, rows: wordRowsOf(text, vectors) }]), roundSlot: Int32Array.of(names.length - 1) };
      parts.push(part);
      index.addPart(part);
    };
    put('kick', 'John: I started kickboxing last week');
    put('rome', 'John: We flew to Rome in May');
    put('soup', 'John: I made banana soup');
    const ids = (text: string, limit = 10, accept?: (roundId: string) => boolean) =>
      index.search(text, limit, names.length, accept && ((slot) => accept(names[slot]!))).map((hit) => names[hit.slot]!);
    return { index, put, ids, dead, names, parts };
  };

  it('finds the round naming an instance of what the question names, though no word is shared', () => {
    expect(build().ids('What martial arts has John done?')[0]).toBe('kick');
    expect(build().ids('Which cities has John visited?')[0]).toBe('rome');
  });

  it('leaves out rounds with no related word (cosine under the threshold)', () => {
    expect(build().ids('martial')).toEqual(['kick']);
  });

  it('counts a word the round holds itself as fully similar, and weighs rare question words more', () => {
    const memory = build();
    memory.put('karate', 'karate');
    const hits = memory.index.search('karate', 10, memory.names.length);
    expect(hits.map((hit) => memory.names[hit.slot])).toEqual(['karate', 'kick']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    // "john" is in three rounds of four, "paris" (≈ "rome") in none: the rare word decides.
    expect(memory.ids('john paris')[0]).toBe('rome');
  });

  it('leaves dead rounds out, takes a round written again in its new words, and keeps to accepted rounds', () => {
    const memory = build();
    memory.dead.add(0);
    expect(memory.ids('martial')).toEqual([]);
    memory.put('rome', 'I practise karate');
    expect(memory.ids('martial')).toEqual(['rome']);
    expect(memory.ids('paris')).toEqual([]);
    memory.put('kick', 'kickboxing again');
    expect(memory.ids('martial', 10, (roundId) => roundId !== 'rome')).toEqual(['kick']);
  });

  it('a merged section answers as the sections it was made of did', () => {
    const memory = build();
    memory.put('karate', 'karate');
    memory.dead.add(1);
    const before = ['martial arts', 'john paris', 'banana', 'karate'].map((question) => memory.ids(question));
    const renumber = (slot: number) => (memory.dead.has(slot) ? Int32Array.of(-1) : Int32Array.of(slot));
    const merged = mergeWordsSections(memory.parts.map((part, slot) => ({ section: part.section, renumber: renumber(slot) })));
    memory.index.setParts([{ section: merged, roundSlot: Int32Array.of(0, 1, 2, 3) }]);
    expect(['martial arts', 'john paris', 'banana', 'karate'].map((question) => memory.ids(question))).toEqual(before);
  });

  it('matches a word the table lacks where a round holds that same word, and counts it among the question words', () => {
    const memory = build();
    // "banana" is in the table, "grandma" is not: only exact matches can find it.
    memory.put('grandma', 'My grandma cooked for us');
    expect(memory.ids('grandma')).toEqual(['grandma']);
    // Each of the two rounds holds one of two words as rare as each other: half the question each.
    const hits = memory.index.search('grandma banana', 10, memory.names.length);
    expect(hits.map((hit) => memory.names[hit.slot]).sort()).toEqual(['grandma', 'soup']);
    for (const hit of hits) expect(hit.score).toBeCloseTo(0.5, 5);
    expect(wordRowsOf('grandma', vectors)[0]).toBeGreaterThanOrEqual(vectors.size);
  });

  it('answers nothing for a question of function words or of words no round holds, or a limit of 0', () => {
    expect(build().ids('what did they do?')).toEqual([]);
    expect(build().ids('zeppelins')).toEqual([]);
    expect(build().ids('martial', 0)).toEqual([]);
  });

  it('names its rows apart from the bare table id, which segments written before unknown words had rows recorded', () => {
    expect(wordRowsId(vectors)).not.toBe(vectors.id);
    expect(wordRowsId(vectors)).toContain(vectors.id);
  });
});
