/** The settings form: reads and writes `AppSettings`; the API key never leaves this tab unless asked. */
import { byId } from './dom.js';
import { keyMissing, type AppSettings, type LlmSettings } from './settings.js';

/** The bound form. */
export interface SettingsForm {
  /** Opens the settings and puts the cursor in the API key field. */
  askForKey(): void;
}

/**
 * Binds the settings form; `onApply` receives the new settings. When the saved endpoint needs a key
 * this tab does not have, the form says so next to the key field.
 */
export function bindSettingsForm(initial: AppSettings, onApply: (settings: AppSettings) => void): SettingsForm {
  const details = byId('settings', HTMLDetailsElement);
  const form = byId('settings-form', HTMLFormElement);
  const kind = byId('llm-kind', HTMLSelectElement);
  const openai = byId('openai-settings', HTMLDivElement);
  const webllm = byId('webllm-settings', HTMLDivElement);
  const baseUrl = byId('llm-base-url', HTMLInputElement);
  const model = byId('llm-model', HTMLInputElement);
  const key = byId('llm-key', HTMLInputElement);
  const keyNote = byId('llm-key-note', HTMLParagraphElement);
  const remember = byId('llm-remember', HTMLInputElement);
  const vision = byId('llm-vision', HTMLInputElement);
  const webllmModel = byId('webllm-model', HTMLInputElement);
  const radios = (name: string) => [...form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]`)];

  const showKind = () => {
    openai.hidden = kind.value !== 'openai';
    webllm.hidden = kind.value !== 'webllm';
  };
  for (const radio of radios('encoders')) radio.checked = radio.value === initial.encoders;
  for (const radio of radios('backend')) radio.checked = radio.value === initial.backend;
  kind.value = initial.llm.kind;
  if (initial.llm.kind === 'openai') {
    baseUrl.value = initial.llm.baseUrl;
    model.value = initial.llm.model;
    key.value = initial.llm.apiKey;
    remember.checked = initial.llm.rememberKey;
    vision.checked = initial.llm.vision;
  } else if (initial.llm.kind === 'webllm') {
    webllmModel.value = initial.llm.model;
  }
  if (initial.llm.kind === 'openai' && keyMissing(initial.llm)) {
    keyNote.textContent = `Enter the API key again: it was kept only in the tab you closed ("Remember the key" was off). Until then nothing is sent to ${initial.llm.baseUrl}.`;
    keyNote.hidden = false;
    key.setAttribute('aria-invalid', 'true');
  }
  showKind();
  kind.addEventListener('change', showKind);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const checked = (name: string) => radios(name).find((radio) => radio.checked)?.value;
    let llm: LlmSettings = { kind: 'none' };
    if (kind.value === 'openai') {
      llm = { kind: 'openai', baseUrl: baseUrl.value.trim(), model: model.value.trim(), apiKey: key.value, rememberKey: remember.checked, usesKey: key.value !== '', vision: vision.checked };
    }
    if (kind.value === 'webllm') llm = { kind: 'webllm', model: webllmModel.value.trim() };
    if (!keyMissing(llm)) {
      keyNote.hidden = true;
      key.removeAttribute('aria-invalid');
    }
    onApply({ encoders: checked('encoders') === 'hub' ? 'hub' : 'embedded', backend: checked('backend') === 'wasm' ? 'wasm' : 'auto', llm });
  });
  return {
    askForKey() {
      details.open = true;
      key.scrollIntoView({ block: 'center', behavior: 'instant' });
      key.focus();
    },
  };
}
