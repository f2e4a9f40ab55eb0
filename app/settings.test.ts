import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, keyMissing, loadSettings, rememberWebGpuAbsent, saveSettings, webGpuAbsentSince, type AppSettings } from './settings.js';

/** localStorage stand-in: a Map behind the Storage interface. */
function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

const openai = (rememberKey: boolean): AppSettings => ({
  encoders: 'embedded',
  backend: 'auto',
  llm: { kind: 'openai', baseUrl: 'https://llm.example/v1', model: 'm', apiKey: 'sk-secret', rememberKey, usesKey: true, vision: false },
});

describe('settings', () => {
  it('never writes the API key unless "remember on this device" is ticked', () => {
    const storage = memoryStorage();
    saveSettings(openai(false), storage);
    const everything = Array.from({ length: storage.length }, (_, i) => storage.getItem(storage.key(i)!)).join('\n');
    expect(everything).not.toContain('sk-secret');
    expect(loadSettings(storage).llm).toMatchObject({ kind: 'openai', baseUrl: 'https://llm.example/v1', apiKey: '', rememberKey: false });
  });

  it('after a reload without "remember", knows the endpoint needs a key it no longer has; a keyless endpoint needs none', () => {
    const storage = memoryStorage();
    saveSettings(openai(false), storage);
    expect(keyMissing(loadSettings(storage).llm)).toBe(true);
    saveSettings(openai(true), storage);
    expect(keyMissing(loadSettings(storage).llm)).toBe(false);
    const local = openai(false);
    saveSettings({ ...local, llm: { ...local.llm, apiKey: '', usesKey: false } as AppSettings['llm'] }, storage);
    expect(keyMissing(loadSettings(storage).llm)).toBe(false);
  });

  it('keeps a remembered key, and erases it once "remember" is unticked', () => {
    const storage = memoryStorage();
    saveSettings(openai(true), storage);
    expect(loadSettings(storage).llm).toMatchObject({ apiKey: 'sk-secret', rememberKey: true });
    saveSettings(openai(false), storage);
    expect(loadSettings(storage).llm).toMatchObject({ apiKey: '', rememberKey: false });
  });

  it('falls back to the defaults when the saved entry is damaged', () => {
    const storage = memoryStorage();
    storage.setItem('vmem:settings', '{not json');
    expect(loadSettings(storage)).toEqual(DEFAULT_SETTINGS);
  });

  it('believes a missing WebGPU adapter for a week, in the same browser only', () => {
    const storage = memoryStorage();
    const day = 86_400_000;
    const at = (days: number, userAgent = 'Chromium 140') => ({ storage, now: days * day, userAgent });
    expect(webGpuAbsentSince(at(1000))).toBeUndefined();
    rememberWebGpuAbsent(true, at(1000));
    expect(webGpuAbsentSince(at(1006))).toEqual(new Date(1000 * day));
    expect(webGpuAbsentSince(at(1007))).toBeUndefined();
    expect(webGpuAbsentSince(at(1001, 'Chromium 141'))).toBeUndefined();
    rememberWebGpuAbsent(false, at(1001));
    expect(webGpuAbsentSince(at(1001))).toBeUndefined();
  });
});
