import { VmemError } from '../errors.js';
import type { ImageRef, StoredRound, StoredTurn } from '../types.js';
import { checkLength, toEpochMs } from './ingest.js';
import { sourceOf, storedTurn } from './turn-text.js';
import type { RoundPatch, TurnPatch } from './types.js';

/**
 * The round with a patch applied, checked as `add` checks a new round. Pure: the caller stores it.
 * Throws `INVALID_INPUT` for an empty or malformed patch, `UNKNOWN_IMAGE` for a caption of an image
 * the turn does not hold, `EMPTY_ROUND` when nothing would be left to remember.
 */
export function applyPatch(round: StoredRound, patch: RoundPatch, maxTextChars: number): StoredRound {
  const label = `The update of round "${round.id}"`;
  if (!patch || typeof patch !== 'object') throw new VmemError('INVALID_INPUT', `${label} is not an object; pass e.g. { user: { text: '…' } }.`);
  const known = ['sessionId', 'timestamp', 'meta', 'user', 'assistant'];
  const unknown = Object.keys(patch).filter((key) => !known.includes(key));
  if (unknown.length) throw new VmemError('INVALID_INPUT', `${label} has unknown field(s) ${unknown.join(', ')}; it may change ${known.join(', ')}.`);
  if (Object.values(patch).every((value) => value === undefined)) {
    throw new VmemError('INVALID_INPUT', `${label} changes nothing; pass at least one of ${known.join(', ')}.`);
  }
  if (patch.sessionId !== undefined && (typeof patch.sessionId !== 'string' || patch.sessionId === '')) {
    throw new VmemError('INVALID_INPUT', `${label} has an empty sessionId.`);
  }
  const updated: StoredRound = {
    ...round,
    ...(patch.sessionId !== undefined ? { sessionId: patch.sessionId } : {}),
    ...(patch.timestamp !== undefined ? { timestamp: toEpochMs(patch.timestamp, label) } : {}),
    user: patch.user === undefined ? round.user : patchTurn(round.user, patch.user, `${label}, user turn`, maxTextChars),
    assistant: patch.assistant === undefined ? round.assistant : patchTurn(round.assistant, patch.assistant, `${label}, assistant turn`, maxTextChars),
  };
  const withMeta = patch.meta === undefined ? updated : withoutMeta(updated, patch.meta === null ? undefined : { ...patch.meta });
  if (isEmpty(withMeta.user) && isEmpty(withMeta.assistant)) {
    throw new VmemError('EMPTY_ROUND', `${label} would leave no text, voice transcript or image on either side; forget the round instead.`);
  }
  return withMeta;
}

function patchTurn(turn: StoredTurn, patch: TurnPatch, label: string, maxTextChars: number): StoredTurn {
  if (!patch || typeof patch !== 'object') throw new VmemError('INVALID_INPUT', `${label} patch is not an object.`);
  checkLength(patch.text, `${label} text`, maxTextChars);
  checkLength(patch.audioTranscript, `${label} voice transcript`, maxTextChars);
  const source = sourceOf(turn);
  const captions = patch.captions ?? {};
  for (const [imageId, caption] of Object.entries(captions)) {
    if (!turn.images.some((image) => image.id === imageId)) {
      throw new VmemError('UNKNOWN_IMAGE', `${label} has no image "${imageId}"; its images are ${turn.images.map((image) => image.id).join(', ') || 'none'}.`);
    }
    checkLength(caption, `${label} caption of image "${imageId}"`, maxTextChars);
    if (!caption.trim() && !turn.images.find((image) => image.id === imageId)!.hasBytes) {
      throw new VmemError('INVALID_INPUT', `${label}: image "${imageId}" has no bytes, so its caption is all there is of it; give it a new caption instead of removing it.`);
    }
  }
  const images = turn.images.map((image): ImageRef => {
    const caption = captions[image.id];
    if (caption === undefined) return image;
    const { caption: _old, ...rest } = image;
    return caption.trim() ? { ...rest, caption: caption.trim() } : rest;
  });
  return storedTurn(
    {
      typed: patch.text === undefined ? source.typed : patch.text.trim(),
      audioTranscript: patch.audioTranscript === undefined ? source.audioTranscript : patch.audioTranscript.trim(),
    },
    images,
  );
}

function withoutMeta(round: StoredRound, meta: StoredRound['meta']): StoredRound {
  const { meta: _old, ...rest } = round;
  return meta && Object.keys(meta).length ? { ...rest, meta } : rest;
}

function isEmpty(turn: StoredTurn): boolean {
  return !turn.text.trim() && turn.images.length === 0;
}
