import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLocomoFile } from '../bench/locomo.js';
import { parseMemGalleryFile } from '../bench/memgallery.js';
import { BENCH_DATA_DIR } from '../src/testing/shared-data.js';
import { parseDialogueFile } from './dialogue-import.js';

const MEMGALLERY = `${BENCH_DATA_DIR}memgallery/Baking_Dessert_Daily_Life_Skill.json`;
const LOCOMO = `${BENCH_DATA_DIR}locomo/locomo-dev.json`;
const read = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

describe('parseDialogueFile', () => {
  it('maps a Mem-Gallery file to the rounds the benchmark measures, with caption-only images', () => {
    const { format, title, rounds } = parseDialogueFile(read(MEMGALLERY), 'Baking_Dessert_Daily_Life_Skill.json');
    expect(format).toBe('mem-gallery');
    expect(title).toBe('Baking_Dessert_Daily_Life_Skill');
    expect(rounds[0]).toMatchObject({ id: 'D1:1', sessionId: 'D1', user: { images: [{ id: 'D1:IMG_001' }] } });
    expect(rounds[0]!.user.images![0]!.caption).toMatch(/bakery/);
    expect(rounds[0]!.user.images![0]!.bytes).toBeUndefined();
    expect(rounds).toEqual(parseMemGalleryFile(MEMGALLERY, read(MEMGALLERY)).conversation.rounds);
  });

  it('maps the first LoCoMo conversation exactly as the benchmark pairs and names its rounds', () => {
    const imported = parseDialogueFile(read(LOCOMO), 'locomo-dev.json');
    expect(imported.format).toBe('locomo');
    expect(imported.note).toMatch(/imported the first/);
    const benchmark = parseLocomoFile(LOCOMO, read(LOCOMO))[0]!.conversation;
    expect(imported.title).toBe(benchmark.id);
    expect(imported.rounds).toEqual(benchmark.rounds);
    // Two turns by different speakers make one round, named by both turn ids.
    expect(imported.rounds[0]).toMatchObject({ id: 'D1:1+D1:2', timestamp: Date.UTC(2023, 4, 8, 13, 56) });
    expect(imported.rounds[0]!.user.text).toMatch(/^Caroline: Hey Mel!/);
    expect(imported.rounds[0]!.assistant!.text).toMatch(/^Melanie: /);
    expect(imported.rounds.some((r) => r.user.images?.some((i) => /dog walking/.test(i.caption ?? '')))).toBe(true);
  });

  it('rejects other JSON, and a file of a known format that is malformed, naming what is wrong', () => {
    expect(() => parseDialogueFile({ messages: [] }, 'chat.json')).toThrow(/neither a Mem-Gallery.*nor a LoCoMo/);
    expect(() => parseDialogueFile([{ sample_id: 'x', conversation: { session_1: [{ speaker: 'A', text: 'hi' }], session_1_date_time: 'now' } }], 'bad.json')).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });
});
