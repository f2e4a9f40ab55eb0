/**
 * The demo's settings: encoders, backend preference and LLM. Saved in localStorage, except the API
 * key, which stays in this tab's memory unless the user ticks "remember on this device".
 */
import type { EncoderChoice } from 'vmem/browser';

/** An OpenAI-compatible endpoint. */
export interface OpenAiSettings {
  readonly kind: 'openai';
  readonly baseUrl: string;
  readonly model: string;
  /** Empty when none was entered in this tab and none was remembered. */
  readonly apiKey: string;
  readonly rememberKey: boolean;
  /**
   * The endpoint takes a key (one was entered). Saved without the key, so that after a reload
   * without "remember" the app asks for the key again instead of calling the endpoint without one.
   */
  readonly usesKey: boolean;
  readonly vision: boolean;
}

/** Which LLM answers questions. */
export type LlmSettings = { readonly kind: 'none' } | OpenAiSettings | { readonly kind: 'webllm'; readonly model: string };

/** Everything the settings panel controls. */
export interface AppSettings {
  readonly encoders: EncoderChoice;
  readonly backend: 'auto' | 'wasm';
  readonly llm: LlmSettings;
}

/** Defaults for a first visit. */
export const DEFAULT_SETTINGS: AppSettings = { encoders: 'embedded', backend: 'auto', llm: { kind: 'none' } };

const SETTINGS_KEY = 'vmem:settings';
const API_KEY_KEY = 'vmem:llm-key';
const LAST_MEMORY_KEY = 'vmem:last-memory';
const NO_WEBGPU_KEY = 'vmem:no-webgpu-adapter';
/** How long a browser's missing WebGPU adapter is believed before it is asked for again. */
const NO_WEBGPU_BELIEVED_MS = 7 * 86_400_000;

/** Reads saved settings; a damaged entry falls back to the defaults. */
export function loadSettings(storage: Storage = localStorage): AppSettings {
  const raw = storage.getItem(SETTINGS_KEY);
  if (!raw) return DEFAULT_SETTINGS;
  let saved: Partial<AppSettings>;
  try {
    saved = JSON.parse(raw) as Partial<AppSettings>;
  } catch {
    // A hand-edited or truncated entry: forget it rather than refuse to start.
    storage.removeItem(SETTINGS_KEY);
    return DEFAULT_SETTINGS;
  }
  const encoders = saved.encoders === 'hub' ? 'hub' : 'embedded';
  const backend = saved.backend === 'wasm' ? 'wasm' : 'auto';
  let llm: LlmSettings = { kind: 'none' };
  if (saved.llm?.kind === 'openai') {
    const apiKey = storage.getItem(API_KEY_KEY);
    llm = { ...saved.llm, apiKey: apiKey ?? '', rememberKey: apiKey !== null, usesKey: saved.llm.usesKey === true || apiKey !== null };
  } else if (saved.llm?.kind === 'webllm') {
    llm = { kind: 'webllm', model: saved.llm.model };
  }
  return { encoders, backend, llm };
}

/** True when the endpoint takes a key that this tab does not have (it was not remembered). */
export function keyMissing(llm: LlmSettings): boolean {
  return llm.kind === 'openai' && llm.usesKey && llm.apiKey === '';
}

/** Saves settings. The key is written only when `rememberKey` is true, and erased otherwise. */
export function saveSettings(settings: AppSettings, storage: Storage = localStorage): void {
  const { llm } = settings;
  if (llm.kind === 'openai') {
    const { apiKey, ...withoutKey } = llm;
    storage.setItem(SETTINGS_KEY, JSON.stringify({ ...settings, llm: withoutKey }));
    if (llm.rememberKey && apiKey) storage.setItem(API_KEY_KEY, apiKey);
    else storage.removeItem(API_KEY_KEY);
    return;
  }
  storage.setItem(SETTINGS_KEY, JSON.stringify(settings));
  storage.removeItem(API_KEY_KEY);
}

/** The memory opened last, so a reload reopens it. */
export function lastMemoryName(storage: Storage = localStorage): string | undefined {
  return storage.getItem(LAST_MEMORY_KEY) ?? undefined;
}

export function rememberMemoryName(name: string, storage: Storage = localStorage): void {
  storage.setItem(LAST_MEMORY_KEY, name);
}

/** Where the WebGPU note is kept and what it is checked against; injectable for tests. */
export interface BrowserFacts {
  readonly storage?: Storage;
  readonly now?: number;
  readonly userAgent?: string;
}

/**
 * When this browser last had no WebGPU adapter, if that was in the past week: asking again on every
 * visit only makes the browser log "No available adapters." in the console.
 */
export function webGpuAbsentSince({ storage = localStorage, now = Date.now(), userAgent = navigator.userAgent }: BrowserFacts = {}): Date | undefined {
  const [savedAgent, at] = storage.getItem(NO_WEBGPU_KEY)?.split('\n') ?? [];
  const when = Number(at);
  return savedAgent === userAgent && now - when < NO_WEBGPU_BELIEVED_MS ? new Date(when) : undefined;
}

export function rememberWebGpuAbsent(absent: boolean, { storage = localStorage, now = Date.now(), userAgent = navigator.userAgent }: BrowserFacts = {}): void {
  if (absent) storage.setItem(NO_WEBGPU_KEY, `${userAgent}\n${now}`);
  else storage.removeItem(NO_WEBGPU_KEY);
}
