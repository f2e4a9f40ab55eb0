/**
 * How a round becomes a CouchDB document and back. With a sync passphrase every field that tells
 * something is sealed with the sealer of issue 24 (src/storage/sealer.ts) under a sync key that
 * only devices with the passphrase unwrap: the document id is an HMAC of the round id, the round,
 * its pictures and its vectors are AES-GCM ciphertext. Without one, they travel as they are.
 */
import { VmemError } from '../errors.js';
import { createDataKey, unwrapDataKey, type KeyRecord, type Sealer } from '../storage/sealer.js';
import type { EncoderIds, StoredRound, StoredUnit } from '../types.js';
import { fromBase64, toBase64, toHex } from '../util/byte-text.js';
import type { PouchDatabase, PouchDoc } from './pouch.js';

/** The database's key document: a sync key wrapped by the passphrase, or a mark that it is plain. */
const KEY_DOC = 'vmem-sync-key';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** What a round's document holds, sealed as one (field `p`). */
export interface RoundPayload {
  readonly round: StoredRound;
  /** Epoch ms of the edit this version records (the conflict rule compares it). */
  readonly editedAt: number;
  readonly encoders: EncoderIds;
  readonly images: readonly { readonly id: string; readonly mimeType: string; readonly attachment: string }[];
  /** Whose units the document's `u` field holds (`unitsName` of the sender's encoders). */
  readonly units?: string;
  /** Versions this one won over (the conflict rule's losers), oldest first. */
  readonly history: readonly { readonly editedAt: number; readonly round: StoredRound }[];
}

export interface Codec {
  readonly encrypted: boolean;
  docId(roundId: string): Promise<string>;
  /** A tag naming the round's content (not its local `seq`): equal tags, equal rounds. */
  tag(round: StoredRound): Promise<string>;
  sealText(kind: string, docId: string, text: string): Promise<string>;
  openText(kind: string, docId: string, sealed: string): Promise<string>;
  seal(kind: string, docId: string, bytes: Uint8Array): Promise<Uint8Array>;
  open(kind: string, docId: string, bytes: Uint8Array): Promise<Uint8Array>;
}

/**
 * The codec of this database: reads its key document (from the replica, else the server), creates
 * one when the database is new, and refuses a database sealed differently from what was asked.
 */
export async function openCodec(local: PouchDatabase, remote: PouchDatabase, passphrase: string | undefined, url: string): Promise<Codec> {
  const stored = (await readKeyDoc(local)) ?? (await readKeyDoc(remote));
  let keyDoc = stored;
  if (!keyDoc) {
    keyDoc = passphrase === undefined ? { _id: KEY_DOC, plain: true } : { _id: KEY_DOC, record: (await createDataKey({ passphrase })).record };
    // The sync key is wrapped once; creating it here while another device creates its own would leave two.
    try {
      await remote.put(keyDoc);
    } catch (error) {
      if ((error as { status?: number }).status !== 409) throw error;
      keyDoc = (await readKeyDoc(remote))!;
    }
  }
  const record = keyDoc.record as KeyRecord | undefined;
  if (!record && passphrase !== undefined) {
    throw new VmemError('SYNC_CONFLICT', `The database at ${url} holds an unencrypted memory; sync this memory with a new database (a new URL), so nothing of it reaches the server in plaintext.`);
  }
  if (record && passphrase === undefined) {
    throw new VmemError('SYNC_CONFLICT', `The database at ${url} is end-to-end encrypted; pass the sync passphrase its other devices use (\`passphrase\`).`);
  }
  if (!record) return plainCodec();
  // Unwrapping here with a key that was just created costs a second KDF run; it also checks it.
  const key = await unwrapDataKey(record, { passphrase: passphrase! }, `the sync key of ${url}`);
  if (!stored) await local.put({ _id: KEY_DOC, record }).catch(() => undefined);
  return sealedCodec(key.sealer);
}

async function readKeyDoc(db: PouchDatabase): Promise<PouchDoc | undefined> {
  try {
    const doc = await db.get(KEY_DOC);
    return { _id: KEY_DOC, ...(doc.record ? { record: doc.record } : { plain: true }) };
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw error;
  }
}

function plainCodec(): Codec {
  return {
    encrypted: false,
    docId: async (roundId) => `r-${roundId}`,
    tag: async (round) => sha256(canonical(contentOf(round))),
    sealText: async (_kind, _id, text) => text,
    openText: async (_kind, _id, text) => text,
    seal: async (_kind, _id, bytes) => bytes,
    open: async (_kind, _id, bytes) => bytes,
  };
}

function sealedCodec(sealer: Sealer): Codec {
  return {
    encrypted: true,
    docId: async (roundId) => `r-${await sealer.storedId('sync-round', roundId)}`,
    tag: async (round) => sealer.storedId('sync-version', await sha256(canonical(contentOf(round)))),
    sealText: (kind, id, text) => sealer.sealText(kind, id, text),
    openText: (kind, id, text) => sealer.openText(kind, id, text),
    seal: (kind, id, bytes) => sealer.seal(kind, id, bytes),
    open: (kind, id, bytes) => sealer.open(kind, id, bytes),
  };
}

/** A round without its place in this device's history (`seq`), which other devices number their own way. */
function contentOf(round: StoredRound): Omit<StoredRound, 'seq'> {
  const { seq: _seq, ...content } = round;
  return content;
}

/** JSON with sorted keys, so equal rounds give equal text whatever order storage gave their fields. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );
}

async function sha256(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', utf8.encode(text))));
}

/**
 * The name of a round's units for these encoders (the document's `u` field is only taken when the
 * payload's `units` names the reader's own encoders; a device with other encoders ignores it). The
 * describer is left out: its descriptions' units are text vectors like any other, and a device with
 * another describer describes the pictures again (their `derived.by` says whose they are).
 */
export async function unitsName(encoders: EncoderIds): Promise<string> {
  return `u-${(await sha256(canonical({ text: encoders.text, image: encoders.image }))).slice(0, 16)}`;
}

/** Units as bytes: their fields as JSON, each vector base64 of its float32 bytes. */
export function encodeUnits(units: readonly StoredUnit[]): Uint8Array {
  return utf8.encode(JSON.stringify(units.map((unit) => ({ ...unit, vector: toBase64(new Uint8Array(unit.vector.buffer, unit.vector.byteOffset, unit.vector.byteLength)) }))));
}

export function decodeUnits(bytes: Uint8Array): StoredUnit[] {
  return (JSON.parse(fromUtf8.decode(bytes)) as (Omit<StoredUnit, 'vector'> & { vector: string })[]).map((unit) => {
    const raw = fromBase64(unit.vector);
    return { ...unit, vector: new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)) };
  });
}

