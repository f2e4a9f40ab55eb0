/** The demo's entry: wires the panes to the app state, starts the encoders, opens the last memory. */
import { errorCode } from 'vmem';
import type { EncoderCallCounts } from 'vmem/browser';
import { actReportingTo, createAlerts } from './alerts.js';
import { AppState, describeModelLoad, type ModelLoad } from './app-state.js';
import { bindAskPane } from './ask-pane.js';
import { bindChatPane } from './chat-pane.js';
import { byId, el } from './dom.js';
import { describeEngine } from './engine-status.js';
import { bindSkipLinks, bindSubmitShortcut } from './keyboard.js';
import { bindLockBar } from './lock-bar.js';
import { bindMemoryBar } from './memory-bar.js';
import { openOrOffer } from './open-offer.js';
import { keyMissing, lastMemoryName, loadSettings } from './settings.js';
import { bindSettingsForm } from './settings-view.js';
import { bindSyncPanel } from './sync-panel.js';
import { describeOffline, registerServiceWorker, type OfflineState } from './sw-register.js';
import { plural, type TaskState } from './task-progress.js';
import { mountVideoControl } from './video-control.js';

/** What the page exposes for tests and the browser benchmark. */
export interface VmemTestHooks {
  /** Resolves once encoders are loaded and a memory is open. */
  readonly ready: Promise<void>;
  readonly isReady: boolean;
  encoderCalls(): Promise<EncoderCallCounts>;
  readonly app: AppState;
  /** The offline state the footer shows. */
  readonly offline: OfflineState;
}

declare global {
  interface Window {
    __vmem?: VmemTestHooks;
  }
}

/** Each area reports into the alert region beside its controls. */
const regions = {
  page: createAlerts(byId('alerts', HTMLDivElement)),
  memory: createAlerts(byId('memory-alerts', HTMLDivElement)),
  compose: createAlerts(byId('compose-alerts', HTMLDivElement)),
  ask: createAlerts(byId('ask-alerts', HTMLDivElement)),
  settings: createAlerts(byId('settings-alerts', HTMLDivElement)),
  sync: createAlerts(byId('sync-alerts', HTMLDivElement)),
};
const backendStatus = byId('backend-status', HTMLSpanElement);
const memorySize = byId('memory-size', HTMLSpanElement);
const modelProgress = byId('model-progress', HTMLUListElement);
const ingestRow = byId('ingest-progress-row', HTMLDivElement);
const ingestBar = byId('ingest-progress', HTMLProgressElement);
const ingestLabel = byId('ingest-progress-label', HTMLLabelElement);
const offlineStatus = byId('offline-status', HTMLSpanElement);
const offlineNotice = byId('offline-notice', HTMLParagraphElement);
const appBase = new URL('./', document.baseURI).href;

let renderHistory: () => Promise<void> = async () => {};
/** The memory whose history and results the page shows. */
let shownMemory: string | undefined;
const results = byId('results', HTMLDivElement);
/** Results of a memory that changed since (a switch, a forget) are taken away, saying why, rather than shown as current. */
const staleResults = (why: string) => {
  if (results.childElementCount === 0) return;
  results.replaceChildren(el('p', { class: 'muted' }, `${why}; ask again to see what it holds.`));
};
let refreshMemories = async () => {};
let syncMemoryChanged = () => {};
let showLockStatus = () => {};
const showSize = () => {
  const session = app.session;
  if (!session) {
    memorySize.textContent = '';
    return;
  }
  const task = app.tasks.current;
  const storing = task?.phase === 'running' && task.unit === 'rounds' ? ` · storing ${task.total === undefined ? '' : `${task.loaded} of ${task.total} `}…` : '';
  memorySize.textContent = `${session.name}: ${plural(session.memory.size, 'round')}${storing} · opened in ${Math.round(session.openMs)} ms`;
};

const showModels = (loads: readonly ModelLoad[]) => {
  modelProgress.hidden = loads.length === 0;
  modelProgress.replaceChildren(
    ...loads.map((load) => {
      const text = describeModelLoad(load);
      return el('li', { class: 'progress-row' }, el('span', {}, text), el('progress', { max: String(load.total), value: String(load.loaded), 'aria-label': text }));
    }),
  );
};

/** The write in progress: from the moment it is asked for until it ends, whatever ends it. */
const showTask = (state: TaskState) => {
  ingestRow.hidden = state.phase !== 'running';
  if (state.phase === 'running') {
    const noun = state.unit === 'pictures' ? 'picture' : 'round';
    ingestLabel.textContent = state.total === undefined || state.loaded === 0 ? `${state.label}…` : `${state.label}: ${state.loaded} of ${plural(state.total, noun)}`;
    // No value yet: an indeterminate bar, until the first batch of rounds is encoded.
    if (state.loaded === 0 || state.total === undefined) ingestBar.removeAttribute('value');
    else ingestBar.value = state.loaded / state.total;
  }
  showSize();
};

const app = new AppState(
  {
    modelProgress: showModels,
    taskChanged: showTask,
    engineChanged: (engine) => {
      const status = describeEngine(engine, app.webGpuAbsentSince);
      backendStatus.textContent = status.text;
      backendStatus.dataset.backend = engine.backend;
      backendStatus.dataset.fallback = engine.fallbackReason ? 'true' : 'false';
      backendStatus.title = status.detail;
    },
    memoryChanged: (session) => {
      void renderHistory();
      showSize();
      void refreshMemories();
      showLockStatus();
      if (session.name !== shownMemory) staleResults(`Memory "${session.name}" is open now`);
      shownMemory = session.name;
      syncMemoryChanged();
    },
    notice: (text) => regions.page.notice(text),
    error: (error, retry) => regions.page.error(error, ...(retry ? [retry] : [])),
  },
  loadSettings(),
);

const chatPane = bindChatPane(app, actReportingTo(regions.compose), () => {
  void renderHistory();
  showSize();
  staleResults('A round was forgotten');
});
renderHistory = chatPane.renderHistory;
bindSkipLinks();
bindSubmitShortcut();
bindAskPane(app, actReportingTo(regions.ask));
// A video becomes one round per segment of keyframes; the memory is looked up at use, as it can be
// switched. The control shows its errors in its own line, next to it.
mountVideoControl(byId('video-slot', HTMLElement), {
  memory: { add: (rounds, options) => app.memory.add(rounds, options) },
  onAdded: () => {
    void renderHistory();
    showSize();
  },
});
const lockBar = bindLockBar(app, { act: actReportingTo(regions.memory), alerts: regions.memory, opened: () => void refreshMemories() });
showLockStatus = lockBar.showStatus;
refreshMemories = bindMemoryBar(app, {
  act: actReportingTo(regions.memory),
  alerts: regions.memory,
  locked: lockBar.locked,
  passphraseForNew: lockBar.passphraseForNew,
  changed: () => {
    void renderHistory();
    showSize();
  },
  samplesUrl: new URL('samples/', appBase).href,
}).refresh;
syncMemoryChanged = bindSyncPanel(app, {
  act: actReportingTo(regions.sync),
  changed: () => {
    void renderHistory();
    showSize();
    staleResults('Another device changed this memory');
  },
}).memoryChanged;
/** The LLM buttons do nothing without a language model: they say so instead of failing on click. */
const showLlmButtons = () => {
  const none = app.settings.llm.kind === 'none';
  for (const button of [byId('answer', HTMLButtonElement), byId('send-and-reply', HTMLButtonElement)]) {
    button.disabled = none;
    button.title = none ? 'Choose a language model in Settings first (an OpenAI-compatible endpoint, or WebLLM).' : '';
  }
};
showLlmButtons();
const settingsForm = bindSettingsForm(app.settings, (settings) =>
  void actReportingTo(regions.settings)(async () => {
    await app.applySettings(settings);
    showLlmButtons();
  }),
);
const savedLlm = app.settings.llm;
if (savedLlm.kind === 'openai' && keyMissing(savedLlm)) {
  regions.page.notice(`The API key for ${savedLlm.baseUrl} was not remembered on this device; answers need it again.`, {
    label: 'Enter the key',
    run: () => settingsForm.askForKey(),
  });
}

async function boot(): Promise<void> {
  backendStatus.textContent = 'Loading models…';
  await app.startEngine();
  const target = { alerts: regions.memory, act: actReportingTo(regions.memory), opened: () => void refreshMemories(), locked: lockBar.locked };
  if (await openOrOffer(app, lastMemoryName() ?? 'default', target)) return;
  try {
    await app.openMemory('default');
  } catch (error) {
    // Locked as well: nothing is open until a passphrase unlocks one (the lock bar asks for it).
    if (errorCode(error) !== 'PASSPHRASE_REQUIRED') throw error;
  }
}

let isReady = false;
let offline: OfflineState = { state: 'pending' };
const ready = boot().then(() => {
  const unsent = chatPane.restoreUnsent();
  if (unsent) regions.compose.notice(unsent);
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
  get offline() {
    return offline;
  },
};
ready.catch((error: unknown) => {
  backendStatus.textContent = `Not running: ${errorCode(error) ?? 'error'}`;
  regions.page.error(error);
});

/** The footer's offline claim follows the service worker; a failure is also said at the top (one notice, updated in place). */
const showOffline = (state: OfflineState) => {
  offline = state;
  const { text, advice } = describeOffline(state);
  const said = advice ? `${text} ${advice}` : text;
  offlineStatus.textContent = said;
  offlineStatus.dataset.state = state.state === 'failed' && state.stillOffline ? 'ready' : state.state;
  offlineNotice.hidden = state.state !== 'failed';
  offlineNotice.textContent = said;
};
// Registered a few seconds after the memory is open, and once no rounds are being stored: the offline
// copy (tens of MB) then competes neither with opening the memory nor with what a visitor does first
// (loading the sample took half as long again beside it), for the CPU, the bandwidth or a small
// storage quota.
const OFFLINE_COPY_DELAY_MS = 3_000;
const registerOffline = () =>
  void new Promise((resolve) => setTimeout(resolve, OFFLINE_COPY_DELAY_MS))
    .then(() => app.tasks.whenStoringDone())
    .then(() => registerServiceWorker(new URL('sw.js', appBase).href, showOffline));
ready.then(registerOffline, registerOffline);
