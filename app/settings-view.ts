/** The settings form: reads and writes `AppSettings`; the API key never leaves this tab unless asked. */
import { byId } from './dom.js';
import type { AppSettings, LlmSettings } from './settings.js';

/** Binds the settings form; `onApply` receives the new settings. */
export function bindSettingsForm(initial: AppSettings, onApply: (settings: AppSettings) => void): void {
  const form = byId('settings-form', HTMLFormElement);
  const kind = byId('llm-kind', HTMLSelectElement);
  const openai = byId('openai-settings', HTMLDivElement);
  const webllm = byId('webllm-settings', HTMLDivElement);
  const baseUrl = byId('llm-base-url', HTMLInputElement);
  const model = byId('llm-model', HTMLInputElement);
  const key = byId('llm-key', HTMLInputElement);
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
  showKind();
  kind.addEventListener('change', showKind);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const checked = (name: string) => radios(name).find((radio) => radio.checked)?.value;
    let llm: LlmSettings = { kind: 'none' };
    if (kind.value === 'openai') {
      llm = { kind: 'openai', baseUrl: baseUrl.value.trim(), model: model.value.trim(), apiKey: key.value, rememberKey: remember.checked, vision: vision.checked };
    } else if (kind.value === 'webllm') {
      llm = { kind: 'webllm', model: webllmModel.value.trim() };
    }
    onApply({ encoders: checked('encoders') === 'hub' ? 'hub' : 'embedded', backend: checked('backend') === 'wasm' ? 'wasm' : 'auto', llm });
  });
}
