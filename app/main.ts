/** The demo's entry: wires the panes to the app state, starts the encoders, opens the last memory. */
import { errorCode } from 'vmem';
import type { EncoderCallCounts } from 'vmem/browser';
import { createAlerts } from './alerts.js';
import { AppState } from './app-state.js';
import { bindAskPane } from './ask-pane.js';
import { bindChatPane, type Act } from './chat-pane.js';
import { byId, setProgress } from './dom.js';
import { bindMemoryBar } from './memory-bar.js';
import { lastMemoryName, loadSettings } from './settings.js';
import { bindSettingsForm } from './settings-view.js';
import { registerServiceWorker } from './sw-register.js';
import { describeEngine } from './engine-status.js';
import { mountVideoControl } from './video-control.js';

/** What the page exposes for tests and the browser benchmark. */
export interface VmemTestHooks {
  /** Resolves once encoders are loaded and a memory is open. */
  readonly ready: Promise<void>;
  readonly isReady: boolean;
  encoderCalls(): Promise<EncoderCallCounts>;
  readonly app: AppState;
}

declare global {
  interface Window {
    __vmem?: VmemTestHooks;
  }
}

const alerts = createAlerts(byId('alerts', HTMLDivElement));
const backendStatus = byId('backend-status', HTMLSpanElement);
const memorySize = byId('memory-size', HTMLSpanElement);
const appBase = new URL('./', document.baseURI).href;

const act: Act = async (action) => {
  try {
    await action();
  } catch (error) {
    alerts.error(error);
  }
};

let renderHistory = () => {};
let refreshMemories = async () => {};
const showSize = () => {
  const session = app.session;
  memorySize.textContent = session ? `${session.name}: ${session.memory.size} rounds · opened in ${Math.round(session.openMs)} ms` : '';
};

const app = new AppState(
  {
    modelProgress: (fraction, text) =>
      setProgress(byId('model-progress-row', HTMLDivElement), byId('model-progress', HTMLProgressElement), byId('model-progress-label', HTMLLabelElement), text, fraction),
    ingestProgress: (fraction, text) => {
      setProgress(byId('ingest-progress-row', HTMLDivElement), byId('ingest-progress', HTMLProgressElement), byId('ingest-progress-label', HTMLLabelElement), text, fraction);
      if (fraction === undefined) {
        renderHistory();
        showSize();
      }
    },
    engineChanged: (engine) => {
      const status = describeEngine(engine);
      backendStatus.textContent = status.text;
      backendStatus.dataset.backend = engine.backend;
      backendStatus.dataset.fallback = engine.fallbackReason ? 'true' : 'false';
      backendStatus.title = status.detail;
    },
    memoryChanged: () => {
      renderHistory();
      showSize();
      void refreshMemories();
    },
    notice: (text) => alerts.notice(text),
    error: (error, retry) => alerts.error(error, retry),
  },
  loadSettings(),
);

renderHistory = bindChatPane(app, act).renderHistory;
bindAskPane(app, act);
// A video becomes one round per segment of keyframes; the memory is looked up at use, as it can be switched.
mountVideoControl(byId('video-slot', HTMLElement), {
  memory: { add: (rounds, options) => app.memory.add(rounds, options) },
  onAdded: () => renderHistory(),
  onError: (error) => alerts.error(error),
});
refreshMemories = bindMemoryBar(app, {
  act,
  notice: (text) => alerts.notice(text),
  changed: () => {
    renderHistory();
    showSize();
  },
  samplesUrl: new URL('samples/', appBase).href,
}).refresh;
bindSettingsForm(app.settings, (settings) => void act(() => app.applySettings(settings)));

/** Opens a memory; a memory built by other encoders gets a "re-encode" offer instead of a dead end. */
async function openWithOffer(name: string): Promise<void> {
  try {
    await app.openMemory(name);
  } catch (error) {
    if (errorCode(error) !== 'ENCODER_MISMATCH') throw error;
    alerts.error(error, { label: 'Re-encode it with the current encoders', run: () => void act(async () => void (await app.openMemory(name, true))) });
    await app.openMemory('default');
  }
}

async function boot(): Promise<void> {
  backendStatus.textContent = 'Loading models…';
  await app.startEngine();
  await openWithOffer(lastMemoryName() ?? 'default');
}

let isReady = false;
const ready = boot().then(() => {
  isReady = true;
  document.body.dataset.ready = 'true';
});
window.__vmem = {
  ready,
  get isReady() {
    return isReady;
  },
  encoderCalls: () => app.encoderCalls(),
  app,
};
ready.catch((error: unknown) => {
  backendStatus.textContent = `Not running: ${errorCode(error) ?? 'error'}`;
  alerts.error(error);
});
void registerServiceWorker(new URL('sw.js', appBase).href).catch((error: unknown) => alerts.error(error));
