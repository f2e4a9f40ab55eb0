/**
 * Checks a `.vmem` file's header completely before anything is written: its structure, every id
 * unique, every reference resolving, every vector the length its encoder makes, every payload slice
 * inside the file, and the counts it states against what it holds. A defect is a typed error that
 * names the part of the file (`rounds[3].user.images[0].id`) and says what to do.
 */
import { VmemError } from '../errors.js';
import type { ImageRef, Lane, Role, StoredRound, StoredTurn, StoredUnit, UnitKind } from '../types.js';
import type { Manifest } from './types.js';

/** Where a value sits in the payload. */
export interface Slice {
  readonly offset: number;
  readonly length: number;
}

/** How many of each a file holds; written by `encodeMemoryFile` so an import can check them. */
export interface FileCounts {
  readonly rounds: number;
  readonly units: number;
  readonly images: number;
}

/** A `.vmem` header, as written by `encodeMemoryFile`. */
export interface FileHeader {
  readonly manifest: Manifest;
  /** Absent in files written before counts were added. */
  readonly counts?: FileCounts;
  readonly rounds: readonly StoredRound[];
  readonly units: readonly (Omit<StoredUnit, 'vector'> & { readonly vector: Slice })[];
  readonly images: readonly { readonly id: string; readonly roundId: string; readonly mimeType: string; readonly bytes: Slice }[];
}

const ROLES: readonly Role[] = ['user', 'assistant'];
const LANE_OF_KIND: Readonly<Record<UnitKind, Lane>> = { text: 'text', caption: 'text', derived: 'text', image: 'image' };
const FIX = 'The file is damaged or was edited; export the memory again from where it came from.';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function damaged(where: string, what: string): VmemError {
  return new VmemError('INVALID_INPUT', `This memory file is damaged: ${where} ${what}. ${FIX}`);
}

function object(value: unknown, where: string): Json {
  if (!isObject(value)) throw damaged(where, value === undefined ? 'is missing' : 'is not an object');
  return value;
}

function array(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw damaged(where, value === undefined ? 'is missing' : 'is not a list');
  return value;
}

function text(value: unknown, where: string, options: { nonEmpty?: boolean; optional?: boolean } = {}): string | undefined {
  if (value === undefined && options.optional) return undefined;
  if (typeof value !== 'string') throw damaged(where, value === undefined ? 'is missing' : 'is not text');
  if (options.nonEmpty && value === '') throw damaged(where, 'is empty');
  return value;
}

function whole(value: unknown, where: string, min = 0): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) throw damaged(where, `is not a whole number${min > 0 ? ` of at least ${min}` : ''}`);
  return value;
}

function finite(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw damaged(where, 'is not a number');
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], where: string): T {
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw damaged(where, `is ${JSON.stringify(value)}, not one of ${allowed.join(', ')}`);
  return value as T;
}

function slice(value: unknown, where: string, payloadLength: number): Slice {
  const fields = object(value, where);
  const offset = whole(fields.offset, `${where}.offset`);
  const length = whole(fields.length, `${where}.length`);
  if (offset + length > payloadLength) throw damaged(where, `points past the end of the file (bytes ${offset}-${offset + length} of ${payloadLength}); the file is cut short`);
  return { offset, length };
}

function checkManifest(value: unknown): Manifest {
  if (value === undefined) throw new VmemError('INVALID_INPUT', `This memory file has no manifest (the encoders that built it), so it cannot be checked or opened. ${FIX}`);
  const manifest = object(value, 'the manifest');
  whole(manifest.schemaVersion, "the manifest's schemaVersion", 1);
  finite(manifest.createdAt, "the manifest's createdAt");
  const encoders = object(manifest.encoders, "the manifest's encoders");
  for (const lane of ['text', 'image'] as const) {
    if (lane === 'image' && encoders.image === undefined) continue;
    const encoder = object(encoders[lane], `the manifest's ${lane} encoder`);
    text(encoder.id, `the manifest's ${lane} encoder id`, { nonEmpty: true });
    whole(encoder.dimension, `the manifest's ${lane} encoder dimension`, 1);
  }
  return value as Manifest;
}

function checkTurn(value: unknown, where: string, roundId: string, role: Role, imageIds: Map<string, ImageRef>): void {
  const turn = object(value, where);
  text(turn.text, `${where}.text`);
  text(turn.typed, `${where}.typed`, { optional: true });
  text(turn.audioTranscript, `${where}.audioTranscript`, { optional: true });
  array(turn.images, `${where}.images`).forEach((item, index) => {
    const at = `${where}.images[${index}]`;
    const image = object(item, at);
    const id = text(image.id, `${at}.id`, { nonEmpty: true })!;
    if (imageIds.has(id)) throw new VmemError('DUPLICATE_ROUND', `This memory file holds image id "${id}" twice (${at}); image ids must be unique. ${FIX}`);
    if (image.roundId !== roundId) throw damaged(`${at}.roundId`, `is ${JSON.stringify(image.roundId)}, not its round "${roundId}"`);
    if (image.role !== role) throw damaged(`${at}.role`, `is ${JSON.stringify(image.role)}, not "${role}"`);
    text(image.caption, `${at}.caption`, { optional: true });
    text(image.mimeType, `${at}.mimeType`, { optional: true });
    if (typeof image.hasBytes !== 'boolean') throw damaged(`${at}.hasBytes`, 'is not true or false');
    if (image.derived !== undefined) {
      const derived = object(image.derived, `${at}.derived`);
      for (const field of ['by', 'text', 'labelled']) text(derived[field], `${at}.derived.${field}`);
    }
    imageIds.set(id, image as unknown as ImageRef);
  });
}

function checkRound(value: unknown, where: string, imageIds: Map<string, ImageRef>): StoredRound {
  const round = object(value, where);
  const id = text(round.id, `${where}.id`, { nonEmpty: true })!;
  whole(round.seq, `${where}.seq`);
  text(round.sessionId, `${where}.sessionId`);
  finite(round.timestamp, `${where}.timestamp`);
  for (const role of ROLES) checkTurn(round[role], `${where}.${role}`, id, role, imageIds);
  if (round.meta !== undefined) {
    for (const [key, item] of Object.entries(object(round.meta, `${where}.meta`))) {
      if (!['string', 'number', 'boolean'].includes(typeof item)) throw damaged(`${where}.meta.${key}`, 'is not text, a number or true/false');
    }
  }
  return round as unknown as StoredRound;
}

/**
 * The header, checked against itself and a payload of `payloadLength` bytes.
 * @throws VmemError `INVALID_INPUT` naming the damaged part, or `DUPLICATE_ROUND` for a repeated id.
 */
export function checkFileHeader(value: unknown, payloadLength: number): FileHeader {
  const header = object(value, 'the header');
  const manifest = checkManifest(header.manifest);
  const rounds = array(header.rounds, "the header's rounds");
  const units = array(header.units, "the header's units");
  const images = array(header.images, "the header's images");
  if (header.counts !== undefined) {
    const counts = object(header.counts, "the header's counts");
    for (const [part, list] of [['rounds', rounds], ['units', units], ['images', images]] as const) {
      const stated = whole(counts[part], `the header's count of ${part}`);
      if (stated !== list.length) throw damaged(`the header`, `says it holds ${stated} ${part} but holds ${list.length}`);
    }
  }

  const roundById = new Map<string, StoredRound>();
  const imageRefs = new Map<string, ImageRef>();
  rounds.forEach((item, index) => {
    const round = checkRound(item, `rounds[${index}]`, imageRefs);
    if (roundById.has(round.id)) throw new VmemError('DUPLICATE_ROUND', `This memory file holds round "${round.id}" twice (rounds[${index}]); round ids must be unique. ${FIX}`);
    roundById.set(round.id, round);
  });

  const dimensions: Readonly<Record<Lane, number | undefined>> = { text: manifest.encoders.text.dimension, image: manifest.encoders.image?.dimension };
  const unitIds = new Set<string>();
  const unitsOfRound = new Map<string, number>();
  units.forEach((item, index) => {
    const where = `units[${index}]`;
    const unit = object(item, where);
    const id = text(unit.id, `${where}.id`, { nonEmpty: true })!;
    if (unitIds.has(id)) throw damaged(`${where}.id`, `repeats unit id "${id}"`);
    unitIds.add(id);
    const roundId = text(unit.roundId, `${where}.roundId`)!;
    if (!roundById.has(roundId)) throw damaged(`${where}.roundId`, `names round "${roundId}", which the file does not hold`);
    unitsOfRound.set(roundId, (unitsOfRound.get(roundId) ?? 0) + 1);
    const kind = oneOf(unit.kind, Object.keys(LANE_OF_KIND) as UnitKind[], `${where}.kind`);
    const lane = oneOf(unit.lane, ['text', 'image'] as const, `${where}.lane`);
    if (LANE_OF_KIND[kind] !== lane) throw damaged(`${where}.lane`, `is "${lane}", but a ${kind} unit belongs to the ${LANE_OF_KIND[kind]} lane`);
    oneOf(unit.role, ROLES, `${where}.role`);
    if (lane === 'text') text(unit.text, `${where}.text`);
    if (kind !== 'text') {
      const imageId = text(unit.imageId, `${where}.imageId`)!;
      if (imageRefs.get(imageId)?.roundId !== roundId) throw damaged(`${where}.imageId`, `names image "${imageId}", which round "${roundId}" does not hold`);
    }
    const vector = slice(unit.vector, `${where}.vector`, payloadLength);
    const dimension = dimensions[lane];
    if (dimension === undefined) throw damaged(where, `is an image unit, but the manifest names no image encoder`);
    if (vector.length !== dimension * 4) {
      throw damaged(`${where}.vector`, `is ${vector.length} bytes (${vector.length / 4} dimensions), but the ${lane} encoder "${manifest.encoders[lane]!.id}" makes ${dimension}-d vectors (${dimension * 4} bytes)`);
    }
  });
  for (const [roundId, round] of roundById) {
    const hasText = ROLES.some((role) => (round[role] as StoredTurn).text !== '');
    if (hasText && !unitsOfRound.has(roundId)) throw damaged(`round "${roundId}"`, 'has text but no units; its rounds and units do not match');
  }

  const imageIds = new Set<string>();
  images.forEach((item, index) => {
    const where = `images[${index}]`;
    const image = object(item, where);
    const id = text(image.id, `${where}.id`, { nonEmpty: true })!;
    if (imageIds.has(id)) throw damaged(`${where}.id`, `repeats image "${id}"`);
    imageIds.add(id);
    const roundId = text(image.roundId, `${where}.roundId`)!;
    const ref = imageRefs.get(id);
    if (!ref || ref.roundId !== roundId) throw damaged(`${where}`, `is image "${id}" of round "${roundId}", which that round does not hold`);
    if (!ref.hasBytes) throw damaged(`${where}`, `holds bytes for image "${id}", which its round says has none`);
    text(image.mimeType, `${where}.mimeType`);
    const bytes = slice(image.bytes, `${where}.bytes`, payloadLength);
    if (bytes.length === 0) throw damaged(`${where}.bytes`, 'is empty');
  });
  for (const [id, ref] of imageRefs) {
    if (ref.hasBytes && !imageIds.has(id)) throw damaged(`image "${id}" of round "${ref.roundId}"`, 'says it has bytes, but the file holds none for it');
  }
  return value as unknown as FileHeader;
}
