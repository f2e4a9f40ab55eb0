/** Renders a retrieval: the route, the blocks in time order with thumbnails, and the trace table. */
import type { AnswerResult, RetrievalResult, TraceEntry } from 'vmem';
import { el } from './dom.js';
import type { ImageUrls } from './image-urls.js';
import { renderRound, renderThumbnails } from './round-view.js';

/** Replaces `container`'s content with the result. `elapsedMs` is shown next to the route. */
export function renderRetrieval(container: HTMLElement, result: RetrievalResult, images: ImageUrls, elapsedMs: number, answer?: AnswerResult): void {
  const traceOf = new Map(result.trace.map((entry) => [entry.roundId, entry]));
  const route = result.route;
  const flags = [route.counting && 'counting', route.aggregation && 'aggregation', route.conflict && 'conflict'].filter(Boolean).join(', ');
  const summary = el(
    'div',
    { class: 'route', 'data-case': result.case },
    el('strong', {}, 'Route: '),
    el('span', { class: 'case' }, result.case),
    flags ? ` (${flags})` : '',
    el('span', { class: 'muted' }, ` · ${result.trace.filter((entry) => !entry.neighbour).length} hits · ${Math.round(elapsedMs)} ms`),
  );
  const parts: HTMLElement[] = [summary];
  if (answer) parts.push(el('section', { class: 'answer', 'aria-label': 'Answer' }, el('h3', {}, 'Answer'), el('p', {}, answer.answer)));
  if (result.captionAnchor) parts.push(el('p', { class: 'muted' }, `Hypothetical caption searched: ${result.captionAnchor}`));

  if (result.images.length > 0) {
    parts.push(el('h3', {}, 'Retrieved images'), renderThumbnails(result.images, images));
  }
  parts.push(el('h3', {}, 'Blocks (time order)'));
  if (result.blocks.length === 0) parts.push(el('p', { class: 'muted' }, 'Nothing in memory matches yet.'));
  for (const block of result.blocks) {
    const list = el('ol', { class: 'block', 'aria-label': `Block from session ${block.sessionId}` });
    for (const round of block.rounds) {
      const entry = traceOf.get(round.id);
      const badge = entry?.neighbour ? 'neighbour' : entry?.rank !== undefined ? `hit #${entry.rank}` : undefined;
      const item = el('li', { class: entry?.neighbour ? 'neighbour' : 'hit' }, renderRound(round, { images, ...(badge ? { badge } : {}) }));
      list.append(item);
    }
    parts.push(list);
  }
  parts.push(el('h3', {}, 'Trace'), renderTrace(result.trace));
  container.replaceChildren(...parts);
}

/**
 * One row per (round, signal): lane, signal, the kind of unit that matched (a machine-derived picture
 * description says so), rank, and whether the round is only a neighbour.
 */
export function renderTrace(trace: readonly TraceEntry[]): HTMLElement {
  const body = el('tbody');
  const ordered = [...trace].sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity));
  for (const entry of ordered) {
    const rows = entry.hits.length > 0 ? entry.hits : [undefined];
    for (const hit of rows) {
      body.append(
        el(
          'tr',
          { 'data-round-id': entry.roundId, 'data-rank': entry.rank === undefined ? undefined : String(entry.rank) },
          el('td', {}, entry.rank === undefined ? '–' : String(entry.rank)),
          el('td', {}, entry.roundId),
          el('td', {}, hit?.lane ?? '–'),
          el('td', {}, hit?.signal ?? '–'),
          el('td', {}, hit?.unitKind === 'derived' ? 'machine-derived' : (hit?.unitKind ?? '–')),
          el('td', {}, hit ? String(hit.rank) : '–'),
          el('td', {}, hit ? hit.score.toFixed(3) : '–'),
          el('td', {}, entry.neighbour ? `yes (of ${entry.neighbourOf?.join(', ') ?? '?'})` : 'no'),
        ),
      );
    }
  }
  const head = el('thead', {}, el('tr', {}, ...['Fused rank', 'Round', 'Lane', 'Signal', 'Unit', 'Signal rank', 'Score', 'Neighbour'].map((title) => el('th', { scope: 'col' }, title))));
  return el('div', { class: 'table-scroll' }, el('table', { class: 'trace', 'aria-label': 'Retrieval trace' }, head, body));
}
