/** The "Ask memory" pane: a question with an optional image; shows route, blocks and trace. */
import type { Query } from 'vmem';
import type { Act } from './alerts.js';
import type { AppState } from './app-state.js';
import { byId } from './dom.js';
import { readImageFile, type CheckedImage } from './files.js';
import { renderRetrieval } from './results-view.js';
import { assertWithinLimit, refuseLongPastes } from './text-limit.js';

/** Binds the ask pane; `act` reports errors next to its buttons. */
export function bindAskPane(app: AppState, act: Act): void {
  const form = byId('ask', HTMLFormElement);
  const question = byId('question', HTMLTextAreaElement);
  const picker = byId('query-image', HTMLInputElement);
  const imageName = byId('query-image-name', HTMLSpanElement);
  const clearImage = byId('clear-query-image', HTMLButtonElement);
  const answerButton = byId('answer', HTMLButtonElement);
  const results = byId('results', HTMLDivElement);
  let queryImage: CheckedImage | undefined;

  const setImage = (image: CheckedImage | undefined) => {
    queryImage = image;
    imageName.textContent = image ? image.fileName : '';
    imageName.title = image ? image.fileName : '';
    clearImage.hidden = !image;
  };
  picker.addEventListener('change', () => {
    const file = picker.files?.[0];
    picker.value = '';
    if (file) void act(async () => setImage(await readImageFile(file, 'query')));
  });
  clearImage.addEventListener('click', () => setImage(undefined));
  refuseLongPastes(question, act);

  const query = (): Query => {
    assertWithinLimit('The question', question.value.trim());
    return {
      ...(question.value.trim() ? { text: question.value } : {}),
      ...(queryImage ? { image: { bytes: queryImage.bytes, mimeType: queryImage.mimeType } } : {}),
    };
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(async () => {
      results.setAttribute('aria-busy', 'true');
      try {
        const started = performance.now();
        // Weak hits stay: when none seems to match, the view says so above the closest rounds.
        const result = await app.memory.retrieve(query());
        renderRetrieval(results, result, app.images, performance.now() - started);
      } finally {
        results.removeAttribute('aria-busy');
      }
    });
  });
  answerButton.addEventListener('click', () => {
    void act(async () => {
      results.setAttribute('aria-busy', 'true');
      answerButton.disabled = true;
      try {
        const started = performance.now();
        const answer = await app.answer(query());
        renderRetrieval(results, answer.retrieval, app.images, performance.now() - started, answer);
      } finally {
        results.removeAttribute('aria-busy');
        answerButton.disabled = false;
      }
    });
  });
}
