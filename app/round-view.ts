/**
 * Renders a stored round (both turns, with image thumbnails) as DOM, text via textContent only.
 * A turn shows its own words; each image's caption is shown once, under its thumbnail (the memory
 * folds captions into the indexed text, which is not repeated here). Long texts are cut with a
 * "Show all" button, so one long round cannot fill the screen.
 */
import type { ImageRef, StoredRound, StoredTurn } from 'vmem';
import { el } from './dom.js';
import type { ImageUrls } from './image-urls.js';

/** Characters of a turn shown before "Show all". */
export const TEXT_SHOWN_CHARS = 420;

/** Options of `renderRound`. */
export interface RoundViewOptions {
  readonly images: ImageUrls;
  /** Adds a "Forget" button calling this. */
  readonly onForget?: (roundId: string) => void;
  /** Extra label, e.g. "hit #1" or "context". */
  readonly badge?: string;
}

/** Every image of a round, the user's first. */
export function roundImages(round: StoredRound): ImageRef[] {
  return [...round.user.images, ...round.assistant.images];
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

/**
 * What a turn said in its own words: the typed text and voice transcript. A round stored before
 * vmem kept those apart has only the folded text, which is shown as it is (unless it holds nothing
 * but the captions, which the thumbnails show).
 */
export function ownWords(turn: StoredTurn): string {
  if (turn.typed !== undefined || turn.audioTranscript !== undefined) {
    return [turn.typed, turn.audioTranscript && `(voice) ${turn.audioTranscript}`].filter(Boolean).join(' ');
  }
  return turn.images.some((image) => image.caption) && turn.text.startsWith('[Image: ') ? '' : turn.text;
}

function renderTurn(who: string, turn: StoredTurn, images: ImageUrls): HTMLElement {
  const text = ownWords(turn).trim();
  const view = el('div', { class: `turn ${who === 'You' ? 'user' : 'assistant'}` });
  if (text) view.append(el('span', { class: 'who' }, `${who}: `), clampedText(text));
  if (turn.images.length > 0) view.append(renderThumbnails(turn.images, images));
  return text || turn.images.length > 0 ? view : el('div', { class: 'turn empty', hidden: '' });
}

/** The text, cut at a word boundary after `TEXT_SHOWN_CHARS` with a button that shows the rest. */
function clampedText(text: string): HTMLElement {
  const span = el('span', { class: 'text' }, text);
  if (text.length <= TEXT_SHOWN_CHARS * 1.25) return span;
  const cut = text.lastIndexOf(' ', TEXT_SHOWN_CHARS);
  span.textContent = `${text.slice(0, cut > TEXT_SHOWN_CHARS / 2 ? cut : TEXT_SHOWN_CHARS)}…`;
  const more = el('button', { type: 'button', class: 'link' }, 'Show all');
  more.addEventListener('click', () => {
    span.textContent = text;
    more.remove();
  });
  return el('span', { class: 'clamped' }, span, ' ', more);
}

/**
 * Thumbnails for image refs, each with its caption; an image stored as a caption only shows a
 * placeholder with the caption. Under a picture the offline describer has seen comes its
 * machine-derived description, muted and marked as such.
 */
export function renderThumbnails(refs: readonly ImageRef[], images: ImageUrls): HTMLElement {
  const list = el('div', { class: 'thumbs' });
  for (const ref of refs) {
    const figure = el('figure', { class: ref.hasBytes ? 'thumb' : 'thumb caption-only', 'data-image-id': ref.id });
    list.append(figure);
    if (ref.caption) figure.append(el('figcaption', {}, ref.caption));
    if (!ref.hasBytes) {
      figure.prepend(el('span', { class: 'no-pixels', 'aria-hidden': 'true' }, 'picture not stored'));
      if (!ref.caption) figure.append(el('figcaption', {}, '(image without pixels)'));
      continue;
    }
    showImage(figure, ref, images, ref.caption ?? 'stored image');
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

/**
 * Small thumbnails with their rank only, each a link to its round below (whose caption is shown
 * there, once): the "Retrieved images" strip.
 */
export function renderImageStrip(refs: readonly { readonly ref: ImageRef; readonly rank: number | undefined }[], images: ImageUrls): HTMLElement {
  const list = el('div', { class: 'thumbs strip' });
  for (const { ref, rank } of refs) {
    const label = rank === undefined ? 'context' : `#${rank}`;
    const figure = el('figure', { class: ref.hasBytes ? 'thumb' : 'thumb caption-only', 'data-image-id': ref.id, title: ref.caption ?? '' });
    figure.append(el('figcaption', { class: 'rank' }, label));
    list.append(rank === undefined ? figure : el('a', { href: `#hit-${rank}`, class: 'strip-link', 'aria-label': `Image of hit ${label}` }, figure));
    if (ref.hasBytes) showImage(figure, ref, images, `Image of the round ranked ${label}`);
    else figure.prepend(el('span', { class: 'no-pixels' }, 'caption only'));
  }
  return list;
}

/** The image goes in at once, in a fixed-size box, so the layout does not move when its bytes arrive. */
function showImage(figure: HTMLElement, ref: ImageRef, images: ImageUrls, alt: string): void {
  const img = el('img', { alt, loading: 'lazy' });
  figure.prepend(img);
  void images.urlOf(ref.id).then(
    (url) => {
      if (url) img.src = url;
      else img.replaceWith(el('span', { class: 'no-pixels' }, 'picture not stored'));
    },
    (error: unknown) => img.replaceWith(el('span', { class: 'error' }, `Image could not be read: ${error instanceof Error ? error.message : String(error)}`)),
  );
}
