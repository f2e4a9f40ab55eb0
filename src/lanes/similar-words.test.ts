import { describe, expect, it } from 'vitest';
import { topicWordVectors } from '../testing/word-vectors.js';
import { SimilarWordsIndex } from './similar-words.js';

describe('SimilarWordsIndex', () => {
  const build = () => {
    const texts = new Map<string, string>();
    const index = new SimilarWordsIndex(topicWordVectors(), (roundId) => texts.get(roundId)!);
    const put = (roundId: string, text: string) => {
      texts.set(roundId, text);
      index.set(roundId);
    };
    put('kick', 'John: I started kickboxing last week');
    put('rome', 'John: We flew to Rome in May');
    put('soup', 'John: I made banana soup');
    return Object.assign(index, { put });
  };

  it('finds the round naming an instance of what the question names, though no word is shared', () => {
    expect(build().search('What martial arts has John done?', 10).map((hit) => hit.roundId)[0]).toBe('kick');
    expect(build().search('Which cities has John visited?', 10).map((hit) => hit.roundId)[0]).toBe('rome');
  });

  it('leaves out rounds with no related word (cosine under the threshold)', () => {
    const ids = build().search('martial', 10).map((hit) => hit.roundId);
    expect(ids).toEqual(['kick']);
  });

  it('counts a word the round holds itself as fully similar, and weighs rare question words more', () => {
    const index = build();
    index.put('karate', 'karate');
    const hits = index.search('karate', 10);
    expect(hits.map((hit) => hit.roundId)).toEqual(['karate', 'kick']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    // "john" is in three rounds of four, "paris" (≈ "rome") in none: the rare word decides.
    expect(index.search('john paris', 10).map((hit) => hit.roundId)[0]).toBe('rome');
  });

  it('forgets removed rounds, re-reads re-set ones, and keeps to accepted rounds', () => {
    const index = build();
    index.remove('kick');
    expect(index.search('martial', 10)).toEqual([]);
    index.put('rome', 'I practise karate');
    expect(index.search('martial', 10).map((hit) => hit.roundId)).toEqual(['rome']);
    expect(index.search('paris', 10).map((hit) => hit.roundId)).toEqual([]);
    index.put('kick', 'kickboxing again');
    expect(index.search('martial', 10, (roundId) => roundId !== 'rome').map((hit) => hit.roundId)).toEqual(['kick']);
  });

  it('answers nothing for a question of function words or unknown words, or a limit of 0', () => {
    expect(build().search('what did they do?', 10)).toEqual([]);
    expect(build().search('martial', 0)).toEqual([]);
  });
});
