import type { ImageRef, StoredTurn } from '../types.js';

/** What a turn says in its own words: the typed text and the voice transcript. */
export interface TurnSource {
  readonly typed: string;
  readonly audioTranscript: string;
}

/**
 * The one place a turn's indexed text is made: typed text, then `[Audio: transcript]`, then
 * `[Image: caption]` per captioned image, joined by spaces.
 */
export function foldTurnText(source: TurnSource, images: readonly ImageRef[]): string {
  const parts: string[] = [];
  if (source.typed) parts.push(source.typed);
  if (source.audioTranscript) parts.push(`[Audio: ${source.audioTranscript}]`);
  for (const image of images) if (image.caption) parts.push(`[Image: ${image.caption}]`);
  return parts.join(' ');
}

/**
 * A stored turn's own words. Rounds stored before `typed` and `audioTranscript` were kept have only
 * the folded text; their captions and transcript are peeled off its end, which is exact for any text
 * `foldTurnText` made.
 */
export function sourceOf(turn: StoredTurn): TurnSource {
  if (turn.typed !== undefined || turn.audioTranscript !== undefined) {
    return { typed: turn.typed ?? '', audioTranscript: turn.audioTranscript ?? '' };
  }
  let rest = turn.text;
  for (const image of [...turn.images].reverse()) {
    const folded = image.caption ? `[Image: ${image.caption}]` : undefined;
    if (folded && rest.endsWith(folded)) rest = rest.slice(0, rest.length - folded.length).trimEnd();
  }
  const audio = /(?:^|\s)\[Audio: ([^\]]*)\]$/.exec(rest);
  const audioTranscript = audio ? audio[1]! : '';
  const typed = audio ? rest.slice(0, audio.index).trimEnd() : rest;
  return { typed, audioTranscript };
}

/** A stored turn from its words and images. */
export function storedTurn(source: TurnSource, images: readonly ImageRef[]): StoredTurn {
  return {
    text: foldTurnText(source, images),
    ...(source.typed ? { typed: source.typed } : {}),
    ...(source.audioTranscript ? { audioTranscript: source.audioTranscript } : {}),
    images,
  };
}
