/**
 * Renders a retrieval the way a reader checks it: the route and how sure it is, how the question's
 * times were read, the retrieved images, then the hit rounds in rank order (when nothing seems to
 * match, it says so above them: they are the closest rounds), each with its own images and, folded
 * away, the rounds around it that came along as context. The first hits are open, the rest one line each; the blocks the LLM reads (time
 * order) and the trace table are folded too, so an answer stays a screen or two tall at any size of
 * memory.
 */
import type { AnswerResult, ImageRef, RetrievalCase, RetrievalResult, Signal, StoredRound, TraceEntry, TraceHit } from 'vmem';
import { el } from './dom.js';
import type { ImageUrls } from './image-urls.js';
import { ownWords, renderImageStrip, renderRound, roundImages } from './round-view.js';
import { plural } from './task-progress.js';

/** How each case reads to a person: query modality, an arrow, target modality. */
const CASE_LABELS: Readonly<Record<RetrievalCase, string>> = {
  'text-to-text': 'text \u2192 text',
  'text-to-image': 'text \u2192 image',
  'image+text-to-image': 'image+text \u2192 image',
  'image+text-to-text': 'image+text \u2192 text',
};

/** Hits shown open; the rest are folded to one line. */
const OPEN_HITS = 3;

/** Replaces `container`'s content with the result. `elapsedMs` is shown next to the route. */
export function renderRetrieval(container: HTMLElement, result: RetrievalResult, images: ImageUrls, elapsedMs: number, answer?: AnswerResult): void {
  const roundOf = new Map(result.blocks.flatMap((block) => block.rounds).map((round) => [round.id, round]));
  const hits = result.trace.filter((entry) => !entry.neighbour && entry.rank !== undefined).sort((a, b) => a.rank! - b.rank!);
  const route = result.route;
  const flags = [route.counting && 'counting', route.aggregation && 'aggregation', route.conflict && 'conflict'].filter(Boolean).join(', ');
  const context = result.trace.length - hits.length;
  const parts: HTMLElement[] = [
    el(
      'div',
      { class: 'route', 'data-case': result.case },
      el('strong', {}, 'Route: '),
      el('span', { class: 'case' }, CASE_LABELS[result.case]),
      flags ? ` (${flags})` : '',
      el('span', { class: 'muted' }, ` · ${plural(hits.length, 'hit')}, ${plural(context, 'round')} of context · confidence ${result.confidence.toFixed(2)} · ${Math.round(elapsedMs)} ms`),
    ),
  ];
  if (result.timeSpans?.length) parts.push(renderTimes(result.timeSpans));
  if (answer) parts.push(el('section', { class: 'answer', 'aria-label': 'Answer' }, el('h3', {}, 'Answer'), el('p', {}, answer.answer)));
  if (result.captionAnchor) parts.push(el('p', { class: 'muted' }, `Hypothetical caption searched: ${result.captionAnchor}`));
  for (const warning of result.warnings ?? []) parts.push(el('p', { class: 'muted warning' }, warning));

  const shownImages = retrievedImages(result, hits);
  if (shownImages.length > 0) {
    const strip = renderImageStrip(shownImages, images);
    // A link to a folded hit unfolds it.
    strip.addEventListener('click', (event) => {
      const href = (event.target as Element).closest('a')?.getAttribute('href');
      const folded = href ? container.querySelector<HTMLDetailsElement>(`${href} > details.hit-more`) : null;
      if (folded) folded.open = true;
    });
    parts.push(el('h3', {}, 'Retrieved images'), strip);
  }

  parts.push(el('h3', {}, 'Top rounds'));
  if (!result.relevant) {
    parts.push(el('p', { class: 'nothing-found' }, 'Nothing in memory seems to match.'));
    if (hits.length > 0) parts.push(el('p', { class: 'muted' }, 'These are the closest rounds, each with its confidence.'));
  }
  const list = el('ol', { class: 'hits', 'aria-label': 'Top rounds, best first' });
  for (const [at, hit] of hits.entries()) {
    const round = roundOf.get(hit.roundId);
    if (round) list.append(renderHit(round, hit, neighboursOf(hit.roundId, result, roundOf), images, at < OPEN_HITS));
  }
  parts.push(list);

  if (result.blocks.length > 0) parts.push(renderBlocks(result, images));
  parts.push(folded(`Trace: why each of the ${plural(result.trace.length, 'round')} came back`, renderTrace(result.trace), 'trace-details'));
  container.replaceChildren(...parts);
}

/**
 * The images to show, best first: for a text→text question only the hit rounds' own images (the
 * context rounds' pictures answer nothing); otherwise the memory's own choice. Either way in the
 * rank order of their rounds.
 */
function retrievedImages(result: RetrievalResult, hits: readonly TraceEntry[]): { ref: ImageRef; rank: number | undefined }[] {
  const rankOf = new Map(hits.map((hit) => [hit.roundId, hit.rank!]));
  const chosen = result.case === 'text-to-text' ? result.images.filter((image) => rankOf.has(image.roundId)) : result.images;
  return chosen
    .map((ref) => ({ ref, rank: rankOf.get(ref.roundId) }))
    .sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity));
}

/** How the question's times were read: each phrase and the days it was taken to mean. */
function renderTimes(spans: NonNullable<RetrievalResult['timeSpans']>): HTMLElement {
  const day = (ms: number) => new Date(ms).toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  const readings = spans.map((span) => {
    // `end` is exclusive: the last day read is the one before it.
    const last = day(span.end - 1);
    const days = day(span.start) === last ? last : `${day(span.start)} – ${last}`;
    return `"${span.text}" → ${days}${span.soft ? ' (roughly)' : ''}`;
  });
  return el('p', { class: 'muted times-read' }, `Times read: ${readings.join('; ')}`);
}

/** The context rounds a hit brought along, in time order. */
function neighboursOf(roundId: string, result: RetrievalResult, roundOf: ReadonlyMap<string, StoredRound>): StoredRound[] {
  return result.trace
    .filter((entry) => entry.neighbour && entry.neighbourOf?.includes(roundId))
    .map((entry) => roundOf.get(entry.roundId))
    .filter((round): round is StoredRound => round !== undefined)
    .sort((a, b) => a.seq - b.seq);
}

function renderHit(round: StoredRound, hit: TraceEntry, neighbours: readonly StoredRound[], images: ImageUrls, open: boolean): HTMLElement {
  const rank = hit.rank!;
  const item = el('li', { class: 'hit', id: `hit-${rank}`, 'data-rank': String(rank), 'data-round-id': round.id });
  const body = [renderRound(round, { images, badge: `hit #${rank} · confidence ${(hit.confidence ?? 0).toFixed(2)}` })];
  if (neighbours.length > 0) {
    const around = el('ol', { class: 'context' });
    for (const neighbour of neighbours) around.append(el('li', { class: 'neighbour' }, renderRound(neighbour, { images, badge: 'context' })));
    body.push(folded(`Context: ${plural(neighbours.length, 'round')} around it`, around, 'context-details'));
  }
  if (open) {
    item.append(...body);
    return item;
  }
  const details = el('details', { class: 'hit-more' }, el('summary', {}, `#${rank} · ${oneLine(round)}`));
  details.append(...body);
  item.append(details);
  return item;
}

/** Date and the start of what was said, for a folded hit. */
function oneLine(round: StoredRound): string {
  const when = new Date(round.timestamp).toLocaleDateString(undefined, { dateStyle: 'medium' });
  const words = ownWords(round.user) || ownWords(round.assistant);
  const pictures = roundImages(round).length;
  const text = words.length > 90 ? `${words.slice(0, 90)}…` : words;
  return [when, text, pictures > 0 ? plural(pictures, 'image') : ''].filter(Boolean).join(' · ');
}

/** The blocks exactly as the LLM reads them (time order), rendered when first opened. */
function renderBlocks(result: RetrievalResult, images: ImageUrls): HTMLElement {
  const rounds = result.blocks.reduce((sum, block) => sum + block.rounds.length, 0);
  const content = el('div', { class: 'blocks' });
  const details = folded(`Blocks as the LLM reads them (time order): ${plural(result.blocks.length, 'block')}, ${plural(rounds, 'round')}`, content, 'blocks-details');
  details.addEventListener(
    'toggle',
    () => {
      for (const block of result.blocks) {
        const list = el('ol', { class: 'block', 'aria-label': `Block from session ${block.sessionId}` });
        for (const round of block.rounds) list.append(el('li', {}, renderRound(round, { images })));
        content.append(list);
      }
    },
    { once: true },
  );
  return details;
}

function folded(summary: string, content: HTMLElement, className: string): HTMLDetailsElement {
  return el('details', { class: className }, el('summary', {}, summary), content);
}

/** What each signal's raw score means, for the legend under the trace. */
const SCORE_SCALES: Readonly<Record<Signal, string>> = {
  bm25: 'BM25: the summed weight of the question words the round holds (rarer words weigh more); no fixed top, compare it only within one question',
  'similar-words': 'similar words: how many of the question\'s words the round holds or nearly holds (by word vectors), weighted by rarity; compare within one question',
  dense: 'dense: cosine similarity of sentence vectors, from -1 to 1; about 0.5 and above is close',
  image: 'image: cosine similarity of picture vectors, from -1 to 1; about 0.7 and above is the same scene',
  'caption-anchor': 'caption anchor: cosine of a caption to the LLM\'s guess of the sought picture\'s caption, -1 to 1',
  'image-echo': 'image echo: cosine of a round to the caption of the best-matching picture, -1 to 1',
};

/** Signal names as the trace shows them. */
const SIGNAL_LABELS: Readonly<Record<Signal, string>> = {
  bm25: 'BM25',
  'similar-words': 'similar words',
  dense: 'dense',
  image: 'image',
  'caption-anchor': 'caption anchor',
  'image-echo': 'image echo',
};

/** A round's votes with each signal once: the best of its rankings (dense searches with the whole question and with its content words). */
function votesBySignal(hits: readonly TraceHit[]): { hit: TraceHit; rankings: number }[] {
  const best = new Map<Signal, { hit: TraceHit; rankings: number }>();
  for (const hit of hits) {
    const seen = best.get(hit.signal);
    if (!seen) best.set(hit.signal, { hit, rankings: 1 });
    else best.set(hit.signal, { hit: hit.rank < seen.hit.rank ? hit : seen.hit, rankings: seen.rankings + 1 });
  }
  return [...best.values()].sort((a, b) => a.hit.rank - b.hit.rank);
}

/**
 * One row per returned round: its fused rank, and why it came back: each signal once, with the
 * round's rank under it first and its raw score after, or the hits it is context for. Three columns,
 * so it fits a phone; a legend says what each score's scale means.
 */
export function renderTrace(trace: readonly TraceEntry[]): HTMLElement {
  const body = el('tbody');
  const ordered = [...trace].sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity));
  const shown = new Set<Signal>();
  for (const entry of ordered) {
    const why = el('td', { class: 'why' });
    if (entry.neighbour) why.append(el('span', { class: 'muted' }, `context of ${entry.neighbourOf?.join(', ') ?? '?'}`));
    for (const { hit, rankings } of votesBySignal(entry.hits)) {
      shown.add(hit.signal);
      const unit = hit.unitKind === 'derived' ? ' · machine-derived description' : hit.unitKind && hit.unitKind !== 'text' ? ` · ${hit.unitKind}` : '';
      const best = rankings > 1 ? ` (best of ${rankings} searches)` : '';
      why.append(
        el(
          'div',
          { class: 'vote', 'data-signal': hit.signal },
          el('strong', {}, `${SIGNAL_LABELS[hit.signal]} #${hit.rank}`),
          el('span', { class: 'muted' }, ` score ${hit.score.toFixed(hit.score >= 10 ? 1 : 3)}${unit}${best}`),
        ),
      );
    }
    body.append(
      el(
        'tr',
        { 'data-round-id': entry.roundId, 'data-rank': entry.rank === undefined ? undefined : String(entry.rank) },
        el('td', {}, entry.rank === undefined ? '-' : String(entry.rank)),
        el('td', { class: 'id' }, entry.roundId),
        why,
      ),
    );
  }
  const head = el('thead', {}, el('tr', {}, ...['Rank', 'Round', 'Why it came back'].map((title) => el('th', { scope: 'col' }, title))));
  const legend = el(
    'ul',
    { class: 'trace-legend muted', 'aria-label': 'What the scores mean' },
    el('li', {}, 'Each signal ranks the rounds on its own (#1 is its best); those ranks are fused into the round\'s rank. The score after a rank is that signal\'s raw score, which only orders rounds within the signal.'),
    ...[...shown].map((signal) => el('li', {}, SCORE_SCALES[signal])),
  );
  return el('div', { class: 'trace-view' }, el('table', { class: 'trace', 'aria-label': 'Retrieval trace' }, head, body), legend);
}
