import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDialogueFile, parseLocomoDateTime } from './dialogue-import.js';
import { BENCH_DATA_DIR } from '../src/testing/shared-data.js';
import { pathToFileURL } from 'node:url';

const shared = pathToFileURL(BENCH_DATA_DIR);

describe('parseDialogueFile', () => {
  it('maps a Mem-Gallery file to rounds with caption-only images, in order', () => {
    const json = JSON.parse(readFileSync(new URL('memgallery/Baking_Dessert_Daily_Life_Skill.json', shared), 'utf8'));
    const { format, rounds } = parseDialogueFile(json, 'Baking.json');
    expect(format).toBe('mem-gallery');
    expect(rounds[0]).toMatchObject({ id: 'D1:1', sessionId: 'D1', user: { images: [{ id: 'D1:IMG_001' }] } });
    expect(rounds[0]!.user.images![0]!.caption).toMatch(/bakery/);
    expect(rounds[0]!.user.images![0]!.bytes).toBeUndefined();
    const times = rounds.map((r) => r.timestamp as number);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('maps the first LoCoMo conversation, pairing speaker turns into rounds with captions', () => {
    const json = JSON.parse(readFileSync(new URL('locomo/locomo-dev.json', shared), 'utf8'));
    const imported = parseDialogueFile(json, 'locomo-dev.json');
    expect(imported.format).toBe('locomo');
    expect(imported.note).toMatch(/imported the first/);
    expect(imported.rounds[0]!.user.text).toMatch(/^Caroline: Hey Mel!/);
    expect(imported.rounds[0]!.assistant!.text).toMatch(/^Melanie: /);
    expect(imported.rounds.some((r) => r.user.images?.some((i) => /dog walking/.test(i.caption ?? '')))).toBe(true);
    expect(imported.rounds[0]!.timestamp).toBe(Date.UTC(2023, 4, 8, 13, 56));
  });

  it('rejects other JSON with a message naming the expected formats', () => {
    expect(() => parseDialogueFile({ messages: [] }, 'chat.json')).toThrow(/neither a Mem-Gallery.*nor a LoCoMo/);
  });

  it('reads LoCoMo dates, including 12 am/pm edge cases', () => {
    expect(parseLocomoDateTime('12:05 am on 1 January, 2024')).toBe(Date.UTC(2024, 0, 1, 0, 5));
    expect(parseLocomoDateTime('12:05 pm on 1 Jan, 2024')).toBe(Date.UTC(2024, 0, 1, 12, 5));
    expect(parseLocomoDateTime('yesterday')).toBe(0);
  });
});
