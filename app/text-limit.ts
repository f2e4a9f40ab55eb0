/**
 * The text limit in the page: a paste that would pass it is refused before the browser inserts it
 * (inserting megabytes into a textarea blocks the page for seconds), and a submit is checked with
 * the same wording the library uses.
 */
import { VmemError } from 'vmem';
import { DEFAULT_MAX_TEXT_CHARS } from 'vmem/internal';
import type { Act } from './alerts.js';

/**
 * Refuses pastes into `area` that would make it longer than `limit`; the draft stays as it was.
 * @example refuseLongPastes(questionBox, act)
 */
export function refuseLongPastes(area: HTMLTextAreaElement, act: Act, limit = DEFAULT_MAX_TEXT_CHARS): void {
  area.addEventListener('paste', (event) => {
    if ((event.clipboardData?.files.length ?? 0) > 0) return;
    const pasted = event.clipboardData?.getData('text/plain') ?? '';
    const kept = area.value.length - (area.selectionEnd - area.selectionStart);
    if (kept + pasted.length <= limit) return;
    event.preventDefault();
    void act(async () => {
      throw new VmemError(
        'TEXT_TOO_LONG',
        `The pasted text is ${pasted.length.toLocaleString('en')} characters; ${describeLimit(limit)}. Nothing was pasted and your text is unchanged; split it into shorter messages.`,
      );
    });
  });
}

/** Rejects with `TEXT_TOO_LONG` when `text` is over the limit, naming what it is. */
export function assertWithinLimit(what: string, text: string, limit = DEFAULT_MAX_TEXT_CHARS): void {
  if (text.length > limit) {
    throw new VmemError('TEXT_TOO_LONG', `${what} is ${text.length.toLocaleString('en')} characters; ${describeLimit(limit)}. Shorten it; nothing was stored or sent.`);
  }
}

function describeLimit(limit: number): string {
  return `the limit is ${limit.toLocaleString('en')}`;
}
