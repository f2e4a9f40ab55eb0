/** Renders a stored round (both turns, with image thumbnails) as DOM, text via textContent only. */
import type { ImageRef, StoredRound, StoredTurn } from 'vmem';
import { el } from './dom.js';
import type { ImageUrls } from './image-urls.js';

/** Options of `renderRound`. */
export interface RoundViewOptions {
  readonly images: ImageUrls;
  /** Adds a "Forget" button calling this. */
  readonly onForget?: (roundId: string) => void;
  /** Extra label, e.g. "hit #1" or "neighbour". */
  readonly badge?: string;
}

/** A `<li>`/`<article>`-friendly element for one round. */
export function renderRound(round: StoredRound, options: RoundViewOptions): HTMLElement {
  const when = new Date(round.timestamp).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const header = el('div', { class: 'round-head' }, el('time', { datetime: new Date(round.timestamp).toISOString() }, when));
  if (options.badge) header.append(' ', el('span', { class: 'badge small' }, options.badge));
  if (options.onForget) {
    const forget = el('button', { type: 'button', class: 'link danger', 'aria-label': `Forget the round from ${when}` }, 'Forget');
    forget.addEventListener('click', () => options.onForget!(round.id));
    header.append(' ', forget);
  }
  const view = el('article', { class: 'round', 'data-round-id': round.id }, header);
  view.append(renderTurn('You', round.user, options.images), renderTurn('Assistant', round.assistant, options.images));
  return view;
}

function renderTurn(who: string, turn: StoredTurn, images: ImageUrls): HTMLElement {
  const text = turn.text.trim();
  const view = el('div', { class: `turn ${who === 'You' ? 'user' : 'assistant'}` });
  if (text) view.append(el('span', { class: 'who' }, `${who}: `), el('span', { class: 'text' }, text));
  if (turn.images.length > 0) view.append(renderThumbnails(turn.images, images));
  return text || turn.images.length > 0 ? view : el('div', { class: 'turn empty', hidden: '' });
}

/**
 * Thumbnails for image refs; caption-only images show their caption instead. Under a picture the
 * offline describer has seen comes its machine-derived description, muted and marked as such.
 */
export function renderThumbnails(refs: readonly ImageRef[], images: ImageUrls): HTMLElement {
  const list = el('div', { class: 'thumbs' });
  for (const ref of refs) {
    const figure = el('figure', { class: 'thumb', 'data-image-id': ref.id });
    list.append(figure);
    if (!ref.hasBytes) {
      figure.append(el('figcaption', {}, ref.caption ?? '(image without pixels)'));
      continue;
    }
    void images.urlOf(ref.id).then(
      (url) => {
        if (url) figure.prepend(el('img', { src: url, alt: ref.caption ?? 'stored image', loading: 'lazy' }));
      },
      (error: unknown) => figure.prepend(el('span', { class: 'error' }, `Image could not be read: ${error instanceof Error ? error.message : String(error)}`)),
    );
    if (ref.caption) figure.append(el('figcaption', {}, ref.caption));
    if (ref.derived?.labelled) {
      figure.append(
        el(
          'figcaption',
          { class: 'derived', title: 'Machine-derived: what the offline describer saw (objects, colours, readable text); no one wrote it' },
          el('span', { class: 'derived-tag' }, 'machine-derived'),
          ' ',
          ref.derived.labelled,
        ),
      );
    }
  }
  return list;
}
