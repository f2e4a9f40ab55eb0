import { captionUnitId, derivedUnitId, imageUnitId, textUnitId } from '../core/unit-ids.js';
import { VmemError } from '../errors.js';
import { vetPicture } from '../images/image-format.js';
import { storedTurn } from './turn-text.js';
import type { ImageInput, ImageRef, Role, RoundInput, StoredRound, StoredTurn, TurnInput, UnitKind } from '../types.js';
import type { StoredImage } from '../storage/types.js';

/** A unit before encoding: what to embed, and where it belongs. */
export interface UnitSpec {
  readonly id: string;
  readonly roundId: string;
  readonly kind: UnitKind;
  readonly role: Role;
  /** Text for `text`, `caption` and `derived` units. */
  readonly text?: string;
  readonly imageId?: string;
}

export interface PreparedRound {
  readonly round: StoredRound;
  readonly images: readonly StoredImage[];
}

/** Generates ids where the caller gave none; works outside secure contexts too. */
export function newId(prefix: string): string {
  const random =
    typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function'
      ? crypto.randomUUID()
      : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
  return `${prefix}-${random}`;
}

/**
 * Checks and normalises rounds before anything is encoded or stored, so a bad round leaves the
 * memory unchanged. Throws the first problem found, naming the round.
 */
export function prepareRounds(
  inputs: readonly RoundInput[],
  context: { maxTextChars: number; nextSeq: number; isKnownRound: (id: string) => boolean; isKnownImage: (id: string) => boolean },
): PreparedRound[] {
  const roundIds = new Set<string>();
  const imageIds = new Set<string>();
  return inputs.map((input, index) => {
    const label = input?.id ? `round "${input.id}"` : `round #${index + 1} of this batch`;
    if (!input || typeof input !== 'object' || !input.user || typeof input.user !== 'object') {
      throw new VmemError('INVALID_INPUT', `${label} has no user turn; pass { user: { text } }.`);
    }
    const id = input.id ?? newId('round');
    if (typeof id !== 'string' || id === '') throw new VmemError('INVALID_INPUT', `${label} has an empty id.`);
    if (context.isKnownRound(id) || roundIds.has(id)) {
      throw new VmemError('DUPLICATE_ROUND', `${label} is already stored; round ids must be unique. Forget it first to replace it.`);
    }
    roundIds.add(id);
    if (isEmptyTurn(input.user) && (!input.assistant || isEmptyTurn(input.assistant))) {
      throw new VmemError('EMPTY_ROUND', `${label} has no text, voice transcript or image on either side; nothing to remember.`);
    }
    const images: StoredImage[] = [];
    const turn = (turnInput: TurnInput | undefined, role: Role): StoredTurn => {
      const refs = (turnInput?.images ?? []).map((image, imageIndex) => {
        const ref = prepareImage(image, { roundId: id, role, label: `${label}, ${role} image #${imageIndex + 1}`, maxTextChars: context.maxTextChars });
        if (context.isKnownImage(ref.id) || imageIds.has(ref.id)) {
          throw new VmemError('DUPLICATE_ROUND', `${label}: image id "${ref.id}" is already stored; image ids must be unique.`);
        }
        imageIds.add(ref.id);
        // A picture with bytes always has its vetted type (see prepareImage).
        if (image.bytes) images.push({ id: ref.id, bytes: image.bytes, mimeType: ref.mimeType! });
        return ref;
      });
      const where = `${label}, ${role} turn`;
      checkLength(turnInput?.text, `${where} text`, context.maxTextChars);
      checkLength(turnInput?.audioTranscript, `${where} voice transcript`, context.maxTextChars);
      return storedTurn({ typed: turnInput?.text?.trim() ?? '', audioTranscript: turnInput?.audioTranscript?.trim() ?? '' }, refs);
    };
    const round: StoredRound = {
      id,
      seq: context.nextSeq + index,
      sessionId: input.sessionId ?? 'default',
      timestamp: toEpochMs(input.timestamp, label),
      user: turn(input.user, 'user'),
      assistant: turn(input.assistant, 'assistant'),
      ...(input.meta ? { meta: { ...input.meta } } : {}),
    };
    return { round, images };
  });
}

function isEmptyTurn(turn: TurnInput): boolean {
  return !turn.text?.trim() && !turn.audioTranscript?.trim() && !(turn.images && turn.images.length > 0);
}

function prepareImage(image: ImageInput, where: { roundId: string; role: Role; label: string; maxTextChars: number }): ImageRef {
  if (!image || typeof image !== 'object') throw new VmemError('INVALID_INPUT', `${where.label} is not an image object.`);
  if (image.bytes !== undefined && Object.prototype.toString.call(image.bytes) !== '[object Uint8Array]') throw new VmemError('INVALID_INPUT', `${where.label} has bytes that are not a Uint8Array.`);
  const caption = image.caption?.trim() || undefined;
  if (!image.bytes && !caption) {
    throw new VmemError('INVALID_INPUT', `${where.label} has neither bytes nor a caption; pass the image file's bytes.`);
  }
  if (image.bytes && image.bytes.byteLength === 0) {
    throw new VmemError('IMAGE_DECODE_FAILED', `${where.label} is an empty file; attach the image again.`);
  }
  const mimeType = vetPicture(image.bytes, image.mimeType, where.label);
  checkLength(caption, `${where.label} caption`, where.maxTextChars);
  return {
    id: image.id ?? newId('img'),
    roundId: where.roundId,
    role: where.role,
    ...(caption ? { caption } : {}),
    ...(mimeType ? { mimeType } : {}),
    hasBytes: Boolean(image.bytes),
  };
}

/** Refuses a text longer than the limit (and a non-string), naming where it was. */
export function checkLength(text: string | undefined, label: string, maxTextChars: number): void {
  if (text !== undefined && typeof text !== 'string') throw new VmemError('INVALID_INPUT', `${label} must be a string.`);
  if (text && text.length > maxTextChars) {
    throw new VmemError(
      'TEXT_TOO_LONG',
      `${label} is ${text.length.toLocaleString('en')} characters; the limit is ${maxTextChars.toLocaleString('en')}. Split it into several messages or raise maxTextChars.`,
    );
  }
}

/** Epoch ms from what a caller may pass as a timestamp. */
export function toEpochMs(value: RoundInput['timestamp'], label: string): number {
  if (value === undefined) return Date.now();
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw new VmemError('INVALID_INPUT', `${label} has an unreadable timestamp "${String(value)}"; use epoch ms, a Date or an ISO date.`);
  return ms;
}

/** The units a stored round is indexed by; derived from the round alone, so re-indexing needs no input. */
export function unitSpecsOf(round: StoredRound): UnitSpec[] {
  const specs: UnitSpec[] = [];
  for (const role of ['user', 'assistant'] as const) {
    const turn = round[role];
    if (turn.text) specs.push({ id: textUnitId(round.id, role), roundId: round.id, kind: 'text', role, text: turn.text });
    for (const image of turn.images) {
      if (image.caption) specs.push({ id: captionUnitId(image.id), roundId: round.id, kind: 'caption', role, text: image.caption, imageId: image.id });
      if (image.derived?.text) specs.push({ id: derivedUnitId(image.id), roundId: round.id, kind: 'derived', role, text: image.derived.text, imageId: image.id });
      specs.push({ id: imageUnitId(image.id), roundId: round.id, kind: 'image', role, imageId: image.id });
    }
  }
  return specs;
}
