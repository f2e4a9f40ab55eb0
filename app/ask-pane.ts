/** The "Ask memory" pane: a question with an optional image; shows route, blocks and trace. */
import type { Query, RetrievalResult, StoredRound } from 'vmem';
import type { Act } from './alerts.js';
import type { AppState } from './app-state.js';
import { byId } from './dom.js';
import { readImageFile, type CheckedImage } from './files.js';
import { OPEN_HITS, renderRetrieval, type ResultsContext } from './results-view.js';
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

  /** The pictures, and the rounds of the candidates the view may offer (read now: rounds stay in storage until asked for). */
  const shownWith = async (result: RetrievalResult): Promise<ResultsContext> => {
    const offered = (result.candidates ?? []).slice(0, OPEN_HITS * 2);
    const rounds = new Map<string, StoredRound | undefined>(await Promise.all(offered.map(async (entry) => [entry.roundId, await app.memory.get(entry.roundId)] as const)));
    return { images: app.images, round: (id) => rounds.get(id) };
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(async () => {
      results.setAttribute('aria-busy', 'true');
      try {
        const started = performance.now();
        // The demo shows only the hits that pass, and offers the rest as candidates.
        const result = await app.memory.retrieve(query(), { dropWeakHits: true });
        renderRetrieval(results, result, await shownWith(result), performance.now() - started);
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
        renderRetrieval(results, answer.retrieval, await shownWith(answer.retrieval), performance.now() - started, answer);
      } finally {
        results.removeAttribute('aria-busy');
        answerButton.disabled = false;
      }
    });
  });
}
