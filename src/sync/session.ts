/**
 * One sync of a memory with a CouchDB database, through a local PouchDB replica. A pass: local
 * changes go to the replica (`push`), the replica replicates both ways with the server (PouchDB,
 * checkpointed, so an interrupted pass resumes where it stopped), and what arrived goes into the
 * memory (`applyIncoming`), from a checkpoint of its own kept in the replica, so a crash between
 * the replica and the memory replays the rest. Concurrent edits of a round are resolved here: a
 * forget wins over any edit; otherwise the later `editedAt` wins and the loser joins the round's
 * history in its document.
 */
import { errorCode, VmemError } from '../errors.js';
import type { ProgressCallback } from '../progress.js';
import type { StoredImage } from '../storage/types.js';
import type { StoredRound } from '../types.js';
import { imagesOf } from '../types.js';
import { fromBase64, toBase64 } from '../util/byte-text.js';
import { createSerialQueue } from '../util/serial-queue.js';
import { decodeUnits, encodeUnits, openCodec, unitsName, type Codec, type RoundPayload } from './codec.js';
import { defaultReplicaName } from './replica-name.js';
import { loadPouch, type PouchAttachment, type PouchDatabase, type PouchDoc, type PouchReplication, type PouchStatic, type ReplicaAdapter } from './pouch.js';
import type { IncomingRound, SyncHandle, SyncOptions, SyncPort, SyncState } from './types.js';

/** Documents per write and per read of the changes feed. */
const BATCH = 100;
const APPLIED_DOC = '_local/vmem-applied';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * What a device knows of its replica, kept from one `sync` to the next of the same memory: the
 * replica itself when it lives in memory, and which rounds the memory wrote since the last push.
 */
class Replica {
  /** The version tag the memory and the replica last agreed on, per round. */
  readonly known = new Map<string, string>();
  /** The memory's version tag per round (kept current from its writes). */
  readonly memoryTags = new Map<string, string>();
  readonly docOfRound = new Map<string, string>();
  readonly roundOfDoc = new Map<string, string>();
  readonly stale = new Set<string>();
  /** The in-memory replica's database, reused by the next sync. */
  local: PouchDatabase | undefined;
  recovered = false;
  /** Set while a sync of this replica runs: a second one at once would race it. */
  running = false;
  /** Set while a sync writes into the memory: its own writes are not local edits. */
  applying = false;
  onLocalWrite: (() => void) | undefined;

  constructor(port: SyncPort) {
    port.onWrite((ids) => {
      if (this.applying) return;
      for (const id of ids) this.stale.add(id);
      this.onLocalWrite?.();
    });
  }
}

const replicas = new WeakMap<SyncPort, Map<string, Replica>>();

export function startSync(port: SyncPort, options: SyncOptions, onState: (state: SyncState) => void): SyncHandle {
  let byName = replicas.get(port);
  if (!byName) replicas.set(port, (byName = new Map()));
  const key = `${options.replica ?? ''}\u0000${options.url}`;
  let replica = byName.get(key);
  if (!replica) byName.set(key, (replica = new Replica(port)));
  if (replica.running) throw new VmemError('INVALID_INPUT', `${port.label} is already syncing with ${redacted(options.url)}; pause, resume or cancel that sync's handle instead of starting another.`);
  return new SyncSession(port, options, onState, replica).handle();
}

class SyncSession {
  private readonly state: Mutable<SyncState>;
  private local!: PouchDatabase;
  private remote!: PouchDatabase;
  private codec!: Codec;
  private PouchDB!: PouchStatic;
  private readonly known: Map<string, string>;
  private readonly memoryTags: Map<string, string>;
  private readonly docOfRound: Map<string, string>;
  private readonly roundOfDoc: Map<string, string>;
  private readonly stale: Set<string>;
  private readonly queue = createSerialQueue();
  private replication: PouchReplication | undefined;
  private paused = false;
  private cancelled = false;
  private wake: (() => void) | undefined;
  private loaded = 0;
  private total = 0;
  private readonly onProgress: ProgressCallback | undefined;

  constructor(
    private readonly port: SyncPort,
    private readonly options: SyncOptions,
    private readonly onState: (state: SyncState) => void,
    private readonly replica: Replica,
  ) {
    ({ known: this.known, memoryTags: this.memoryTags, docOfRound: this.docOfRound, roundOfDoc: this.roundOfDoc, stale: this.stale } = replica);
    this.state = { status: 'active', url: redacted(options.url), pushed: 0, pulled: 0, forgotten: 0, reencoded: 0, conflicts: 0 };
    this.onProgress = options.onProgress;
  }

  handle(): SyncHandle {
    const done = this.run();
    done.catch(() => undefined);
    if (this.options.signal?.aborted) this.cancel();
    this.options.signal?.addEventListener('abort', () => this.cancel(), { once: true });
    return {
      done,
      pause: () => {
        this.paused = true;
        this.replication?.cancel();
        this.report({ status: 'paused' });
      },
      resume: () => {
        this.paused = false;
        this.report({ status: 'active' });
        this.wake?.();
      },
      cancel: () => this.cancel(),
    };
  }

  private cancel(): void {
    this.cancelled = true;
    this.replication?.cancel();
    this.wake?.();
  }

  private report(change: Partial<SyncState>): void {
    Object.assign(this.state, change);
    this.onState({ ...this.state });
  }

  private progressed(count: number, total: number): void {
    this.loaded += count;
    this.total = Math.max(this.total, total, this.loaded);
    this.onProgress?.({ status: 'progress', task: 'sync', loaded: this.loaded, total: this.total, unit: 'documents' });
  }

  private async run(): Promise<void> {
    this.replica.running = true;
    this.onProgress?.({ status: 'initiate', task: 'sync' });
    try {
      if (this.port.encrypted && this.options.passphrase === undefined) {
        throw new VmemError('INVALID_INPUT', `${this.port.label} is locked with a passphrase; pass a sync passphrase (\`passphrase\`) so the server stores only ciphertext.`);
      }
      await this.open();
      if (this.options.live) this.replica.onLocalWrite = () => void this.queue.run(() => this.push()).then(() => undefined, (error: unknown) => this.fail(error));
      await this.pass();
      if (this.options.live) await this.live();
      this.report({ status: 'idle', lastSyncedAt: Date.now() });
      this.onProgress?.({ status: 'done', task: 'sync' });
    } catch (cause) {
      const error = syncError(cause, this.options.url);
      this.fail(error);
      throw error;
    } finally {
      this.replica.running = false;
      this.replica.onLocalWrite = undefined;
      // The in-memory replica stays open for the next sync of this memory (it is all it has).
      if (this.local && this.local !== this.replica.local) await this.local.close().catch(() => undefined);
    }
  }

  private fail(cause: unknown): void {
    const error = syncError(cause, this.options.url);
    this.report({ status: 'failed', error: { code: errorCode(error) ?? 'SYNC_UNREACHABLE', message: error.message } });
    this.onProgress?.({ status: 'failed', task: 'sync', code: errorCode(error) ?? 'SYNC_UNREACHABLE', message: error.message });
  }

  private async open(): Promise<void> {
    const adapter = replicaAdapter(this.options.replica);
    this.PouchDB = await loadPouch(adapter);
    if (adapter === 'memory') {
      this.replica.local ??= new this.PouchDB(`vmem-sync-${crypto.randomUUID()}`, { adapter, auto_compaction: true });
      this.local = this.replica.local;
    } else {
      this.local = new this.PouchDB(this.options.replica ?? defaultReplicaName(this.port.label), { adapter, auto_compaction: true });
    }
    const headers = this.options.headers;
    this.remote = withObservedInfo(new this.PouchDB(this.options.url, { adapter: 'http', ...(headers ? { headers } : {}) }));
    this.codec = await openCodec(this.local, this.remote, this.options.passphrase, redacted(this.options.url));
    await this.recover();
  }

  /** Reads what the replica holds and what the memory holds, and which changes the memory has not taken yet. */
  private async recover(): Promise<void> {
    // Edits made while no sync ran were heard (stale), but the memory's tags are read again anyway:
    // a replica reopened from disk has heard nothing of them.
    this.memoryTags.clear();
    const ids = this.port.roundIds();
    for (let start = 0; start < ids.length; start += 500) {
      const rounds = await this.port.getRounds(ids.slice(start, start + 500));
      for (const round of rounds) if (round) this.memoryTags.set(round.id, await this.codec.tag(round));
    }
    this.stale.clear();
    if (this.replica.recovered) return;
    this.replica.recovered = true;
    const { rows } = await this.local.allDocs({ include_docs: true, startkey: 'r-', endkey: 'r-\uffff' });
    const tags = new Map<string, string>();
    for (const row of rows) {
      if (!row.doc) continue;
      const roundId = await this.codec.openText('sync-round-id', row.id, row.doc.k as string);
      this.docOfRound.set(roundId, row.id);
      this.roundOfDoc.set(row.id, roundId);
      tags.set(roundId, row.doc.h as string);
    }
    const pending = new Set((await this.local.changes({ since: await this.appliedSeq() })).results.map((change) => change.id));
    for (const [roundId, tag] of tags) {
      if (!pending.has(this.docOfRound.get(roundId)!)) this.known.set(roundId, tag);
      // A change the memory had not taken when it stopped is applied next, over what the memory holds
      // (known as agreed); a round it never took is not known, so nothing counts it as forgotten here.
      else if (this.memoryTags.has(roundId)) this.known.set(roundId, this.memoryTags.get(roundId)!);
    }
  }

  private async pass(): Promise<void> {
    for (let round = 0; round < 4; round++) {
      await this.whileUnpaused(() => this.queue.run(() => this.push()));
      const sent = await this.whileUnpaused(() => this.replicate());
      const wrote = await this.whileUnpaused(() => this.queue.run(() => this.applyIncoming()));
      // What this pass sent may have met another device's change of the same round on the server
      // after the pull had looked (push and pull run side by side): one more pass pulls the other
      // side of that conflict now, not at the next sync.
      if (!wrote && !sent) break;
    }
    this.report({ status: this.options.live ? 'waiting' : 'active', lastSyncedAt: Date.now() });
  }

  /** Runs a step; when paused meanwhile (which cancels replication) waits for `resume` and runs it again. */
  private async whileUnpaused<T>(step: () => Promise<T>): Promise<T | undefined> {
    for (;;) {
      if (this.cancelled) return undefined;
      if (this.paused) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      const result = await step();
      if (!this.paused) return result;
    }
  }

  /** One replication both ways; resolves with whether it sent the server anything. */
  private replicate(): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const replication = this.PouchDB.sync(this.local, this.remote, { batch_size: BATCH, retry: false });
      this.replication = replication;
      let sent = false;
      replication.on('change', (info) => {
        const count = info.change?.docs_written ?? 0;
        if (count > 0 && info.direction === 'push') sent = true;
        if (count > 0) this.progressed(count, 0);
      });
      replication.on('denied', (error) => reject(error));
      replication.then(
        () => resolve(sent),
        (error: unknown) => reject(error),
      );
    });
  }

  /** Live: PouchDB keeps replicating (retrying while the server is away); what arrives is applied as it comes. */
  private async live(): Promise<void> {
    const changes = (this.local as unknown as { changes(options: object): { on(event: string, listener: (value: unknown) => void): unknown; cancel(): void } }).changes({ live: true, since: 'now' });
    changes.on('change', () => void this.queue.run(() => this.applyIncoming()).catch((error: unknown) => this.fail(error)));
    try {
      while (!this.cancelled) {
        if (this.paused) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        const replication = this.PouchDB.sync(this.local, this.remote, { live: true, retry: true, batch_size: BATCH });
        this.replication = replication;
        replication.on('change', (info) => this.progressed(info.change?.docs_written ?? 0, 0));
        // Paused with an error: the server is away and PouchDB retries; without: up to date.
        replication.on('paused', (error) => this.report(error ? { status: 'waiting' } : { status: 'waiting', lastSyncedAt: Date.now() }));
        replication.on('active', () => this.report({ status: 'active' }));
        await new Promise<void>((resolve, reject) => {
          replication.on('denied', reject);
          replication.then(() => resolve(), reject);
        });
      }
    } finally {
      changes.cancel();
    }
  }

  /** Local adds, edits and forgets since the memory and the replica last agreed, written to the replica. */
  private async push(): Promise<void> {
    if (this.stale.size > 0) {
      const ids = [...this.stale];
      this.stale.clear();
      const rounds = await this.port.getRounds(ids);
      for (const [at, id] of ids.entries()) {
        const round = rounds[at];
        if (round) this.memoryTags.set(id, await this.codec.tag(round));
        else this.memoryTags.delete(id);
      }
    }
    const changed = [...this.memoryTags].filter(([id, tag]) => this.known.get(id) !== tag).map(([id]) => id);
    const forgotten = [...this.known.keys()].filter((id) => !this.memoryTags.has(id));
    const total = changed.length + forgotten.length;
    if (total === 0) return;
    for (let start = 0; start < changed.length; start += BATCH) {
      const ids = changed.slice(start, start + BATCH);
      const rounds = await this.port.getRounds(ids);
      const docs: PouchDoc[] = [];
      for (const round of rounds) if (round) docs.push(await this.docOf(round));
      await this.write(docs);
      for (const round of rounds) if (round) this.known.set(round.id, this.memoryTags.get(round.id)!);
      this.report({ pushed: this.state.pushed + docs.length });
      this.progressed(docs.length, total);
    }
    for (let start = 0; start < forgotten.length; start += BATCH) {
      const ids = forgotten.slice(start, start + BATCH);
      const docs: PouchDoc[] = [];
      for (const id of ids) {
        const docId = this.docOfRound.get(id);
        if (docId) docs.push({ _id: docId, _deleted: true, forgotten: true });
      }
      await this.write(docs);
      for (const id of ids) this.known.delete(id);
      this.progressed(ids.length, total);
    }
  }

  /** Writes documents over the replica's current revisions. */
  private async write(docs: PouchDoc[]): Promise<void> {
    if (docs.length === 0) return;
    const current = await this.local.allDocs({ keys: docs.map((doc) => doc._id) });
    const revs = docs.map((doc, at) => ({ ...doc, ...(current.rows[at]?.value?.rev ? { _rev: current.rows[at]!.value.rev } : {}) }));
    const results = await this.local.bulkDocs(revs);
    const failed = results.find((result) => result.error);
    if (failed) throw new VmemError('STORAGE_FAILED', `The sync replica refused a write (${failed.error}); sync again.`);
  }

  /** A round's document: its payload and (for a device with the same encoders) its units sealed, its pictures as attachments. */
  private async docOf(round: StoredRound, previous?: RoundPayload): Promise<PouchDoc> {
    const codec = this.codec;
    const docId = this.docOfRound.get(round.id) ?? (await codec.docId(round.id));
    this.docOfRound.set(round.id, docId);
    this.roundOfDoc.set(docId, round.id);
    const attachments: Record<string, PouchAttachment> = {};
    const images: { id: string; mimeType: string; attachment: string }[] = [];
    for (const [at, ref] of imagesOf(round).filter((ref) => ref.hasBytes).entries()) {
      const image = await this.port.getImage(ref.id);
      if (!image) continue;
      const attachment = `i${at}`;
      attachments[attachment] = { content_type: 'application/octet-stream', data: toBase64(await codec.seal('sync-image', `${docId}/${attachment}`, image.bytes)) };
      images.push({ id: image.id, mimeType: image.mimeType, attachment });
    }
    const units = await unitsName(this.port.encoders);
    const payload: RoundPayload = {
      round,
      editedAt: this.port.writtenAt(round.id) ?? Date.now(),
      encoders: this.port.encoders,
      images,
      units,
      history: previous?.history ?? [],
    };
    return {
      _id: docId,
      k: await codec.sealText('sync-round-id', docId, round.id),
      h: this.memoryTags.get(round.id) ?? (await codec.tag(round)),
      p: await codec.sealText('sync-round', docId, JSON.stringify(payload)),
      // Inline, not an attachment: PouchDB's replication fetches every attachment with a request of
      // its own, and a round's units are a few KB (a browser's fresh pull took nearly 3× as long).
      u: toBase64(await codec.seal('sync-units', `${docId}/${units}`, encodeUnits(this.port.unitsOf(round)))),
      ...(images.length > 0 ? { _attachments: attachments } : {}),
    };
  }

  private async appliedSeq(): Promise<number | string> {
    try {
      return (await this.local.get(APPLIED_DOC)).seq as number | string;
    } catch {
      return 0;
    }
  }

  /**
   * Takes what the replica received into the memory, page by page, and moves the applied checkpoint
   * after each page. Returns whether it wrote to the replica (a conflict resolved), which needs
   * another pass to reach the server.
   */
  private async applyIncoming(): Promise<boolean> {
    let since = await this.appliedSeq();
    let wrote = false;
    for (;;) {
      const page = await this.local.changes({ since, limit: BATCH, include_docs: true, conflicts: true, style: 'all_docs', attachments: true, binary: true });
      if (page.results.length === 0) break;
      const put: IncomingRound[] = [];
      const forget: string[] = [];
      const tags = new Map<string, string | undefined>();
      for (const change of page.results) {
        if (!change.id.startsWith('r-')) continue;
        if (change.changes.length > 1 && (await this.resolve(change.id, change.changes.map((leaf) => leaf.rev)))) {
          wrote = true;
          continue;
        }
        const doc = change.doc;
        if (change.deleted || !doc || doc._deleted) {
          const roundId = this.roundOfDoc.get(change.id);
          if (roundId && this.memoryTags.has(roundId)) forget.push(roundId);
          if (roundId) tags.set(roundId, undefined);
          continue;
        }
        const roundId = await this.codec.openText('sync-round-id', change.id, doc.k as string);
        this.docOfRound.set(roundId, change.id);
        this.roundOfDoc.set(change.id, roundId);
        const tag = doc.h as string;
        const mine = this.memoryTags.get(roundId);
        if (mine === tag) {
          this.known.set(roundId, tag);
          continue;
        }
        // Edited here since the last agreement: the next push decides between the two by the conflict rule.
        if (mine !== undefined && this.known.get(roundId) !== mine) {
          await this.pushOver(roundId, doc);
          wrote = true;
          continue;
        }
        put.push(await this.incoming(change.id, doc));
        tags.set(roundId, tag);
      }
      if (put.length > 0 || forget.length > 0) {
        put.sort((a, b) => a.round.timestamp - b.round.timestamp || (a.round.id < b.round.id ? -1 : 1));
        this.replica.applying = true;
        try {
          const { reencoded } = await this.port.applyRemote(put, forget);
          this.report({ reencoded: this.state.reencoded + reencoded, pulled: this.state.pulled + put.length, forgotten: this.state.forgotten + forget.length });
        } finally {
          this.replica.applying = false;
        }
        this.progressed(put.length + forget.length, 0);
      }
      for (const [roundId, tag] of tags) {
        if (tag === undefined) {
          this.memoryTags.delete(roundId);
          this.known.delete(roundId);
        } else {
          this.memoryTags.set(roundId, tag);
          this.known.set(roundId, tag);
        }
      }
      since = page.last_seq;
      await this.saveApplied(since);
    }
    return wrote;
  }

  private async saveApplied(seq: number | string): Promise<void> {
    let rev: string | undefined;
    try {
      rev = (await this.local.get(APPLIED_DOC))._rev;
    } catch {
      rev = undefined;
    }
    await this.local.put({ _id: APPLIED_DOC, seq, ...(rev ? { _rev: rev } : {}) });
  }

  /** A round the memory edited while another device's edit of it arrived: the later edit wins, the other joins the history. */
  private async pushOver(roundId: string, theirs: PouchDoc): Promise<void> {
    const their = await this.payloadOf(theirs);
    const [mine] = await this.port.getRounds([roundId]);
    if (!mine) return;
    const myEditedAt = this.port.writtenAt(roundId) ?? Date.now();
    this.report({ conflicts: this.state.conflicts + 1 });
    if (myEditedAt >= their.editedAt) {
      const doc = await this.docOf(mine, { ...their, history: [...their.history, { editedAt: their.editedAt, round: their.round }] });
      await this.write([doc]);
      this.known.set(roundId, this.memoryTags.get(roundId)!);
    } else {
      // Theirs wins: the memory takes it (next page), and this edit is kept in its history.
      const payload: RoundPayload = { ...their, history: [...their.history, { editedAt: myEditedAt, round: mine }] };
      await this.write([{ ...theirs, _attachments: stubs(theirs._attachments), p: await this.codec.sealText('sync-round', theirs._id, JSON.stringify(payload)) }]);
      this.known.set(roundId, this.memoryTags.get(roundId)!);
    }
  }

  /**
   * Resolves a document with several leaf revisions (devices that changed it apart): a forget wins
   * over any edit; among edits the latest `editedAt` wins (ties: the higher revision) and the others
   * join its history. Returns whether it wrote.
   */
  private async resolve(docId: string, revs: readonly string[]): Promise<boolean> {
    const open = (await this.local.get(docId, { open_revs: revs })) as unknown as { ok?: PouchDoc }[];
    const leaves = open.flatMap((leaf) => (leaf.ok ? [leaf.ok] : []));
    const alive = leaves.filter((leaf) => !leaf._deleted);
    if (alive.length === 0) return false;
    if (leaves.some((leaf) => leaf._deleted && leaf.forgotten)) {
      await this.local.bulkDocs(alive.map((leaf) => ({ _id: docId, _rev: leaf._rev!, _deleted: true, forgotten: true })));
      return true;
    }
    if (alive.length === 1) return false;
    const payloads = await Promise.all(alive.map((leaf) => this.payloadOf(leaf)));
    const order = alive.map((leaf, at) => ({ leaf, payload: payloads[at]! })).sort((a, b) => b.payload.editedAt - a.payload.editedAt || (a.leaf._rev! < b.leaf._rev! ? 1 : -1));
    const winner = order[0]!;
    const losers = order.slice(1);
    const newLosers = losers.filter((loser) => loser.leaf.h !== winner.leaf.h);
    const writes: PouchDoc[] = losers.map((loser) => ({ _id: docId, _rev: loser.leaf._rev!, _deleted: true }));
    if (newLosers.length > 0) {
      this.report({ conflicts: this.state.conflicts + newLosers.length });
      const seen = new Set(winner.payload.history.map((entry) => `${entry.editedAt}`));
      const history = [...winner.payload.history, ...newLosers.filter((loser) => !seen.has(`${loser.payload.editedAt}`)).map((loser) => ({ editedAt: loser.payload.editedAt, round: loser.payload.round }))].sort((a, b) => a.editedAt - b.editedAt);
      const payload: RoundPayload = { ...winner.payload, history };
      writes.unshift({ ...winner.leaf, _attachments: stubs(winner.leaf._attachments), p: await this.codec.sealText('sync-round', docId, JSON.stringify(payload)) });
    }
    await this.local.bulkDocs(writes);
    return true;
  }

  private async payloadOf(doc: PouchDoc): Promise<RoundPayload> {
    return JSON.parse(await this.codec.openText('sync-round', doc._id, doc.p as string)) as RoundPayload;
  }

  /** A received document as the memory takes it: the round, its pictures, and its units when the encoders match. */
  private async incoming(docId: string, doc: PouchDoc): Promise<IncomingRound> {
    const payload = await this.payloadOf(doc);
    const bytesOf = async (name: string, kind: string) => {
      const attachment = doc._attachments?.[name];
      if (!attachment?.data) throw new VmemError('STORAGE_FAILED', `The sync replica lacks attachment ${name} of a round; sync again.`);
      return this.codec.open(kind, `${docId}/${name}`, await bytesOfData(attachment.data));
    };
    const images: StoredImage[] = [];
    for (const image of payload.images) images.push({ id: image.id, mimeType: image.mimeType, bytes: await bytesOf(image.attachment, 'sync-image') });
    const mine = await unitsName(this.port.encoders);
    // Inline in `u`; written by the first release of sync, an attachment of that name.
    const sealedUnits = payload.units !== mine ? undefined : typeof doc.u === 'string' ? this.codec.open('sync-units', `${docId}/${mine}`, fromBase64(doc.u)) : doc._attachments?.[mine] ? bytesOf(mine, 'sync-units') : undefined;
    const units = sealedUnits ? decodeUnits(await sealedUnits) : undefined;
    return { round: payload.round, images, ...(units ? { units } : {}) };
  }
}

/**
 * The database with every promise that comes of its `info()` observed. PouchDB 9's replication asks
 * its source for its info after every batch, chains a `then` on the answer and never handles a
 * rejection: a server gone between two batches left an unhandled rejection, which ends a Node
 * process. The rejection still reaches every handler that is given one; the replication reports the
 * failure on its own path (the sync then rejects with `SYNC_UNREACHABLE`).
 */
function withObservedInfo(db: PouchDatabase): PouchDatabase {
  const info = db.info.bind(db) as (...args: unknown[]) => ReturnType<PouchDatabase['info']>;
  db.info = (...args: unknown[]) => observed(info(...args));
  return db;
}

/** `promise`, and every promise chained on it by `then`, with a handler that leaves the rejection to the others. */
function observed<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  const then = promise.then.bind(promise) as (...handlers: unknown[]) => Promise<unknown>;
  promise.then = ((...handlers: unknown[]) => observed(then(...handlers))) as Promise<T>['then'];
  return promise;
}

function stubs(attachments: Record<string, PouchAttachment> | undefined): Record<string, PouchAttachment> | undefined {
  if (!attachments) return undefined;
  return Object.fromEntries(Object.entries(attachments).map(([name, attachment]) => [name, { content_type: attachment.content_type, digest: attachment.digest!, stub: true }]));
}

async function bytesOfData(data: string | Uint8Array | Blob): Promise<Uint8Array> {
  if (typeof data === 'string') return fromBase64(data);
  if (data instanceof Uint8Array) return new Uint8Array(data);
  return new Uint8Array(await data.arrayBuffer());
}

function replicaAdapter(replica: string | undefined): ReplicaAdapter {
  if (typeof indexedDB !== 'undefined' && typeof window !== 'undefined') return 'idb';
  return replica === undefined ? 'memory' : 'leveldb';
}

/** The URL without its password, for messages and `syncState()`. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** PouchDB's failures as the three sync errors, each saying what to do. */
function syncError(cause: unknown, url: string): Error {
  if (cause instanceof VmemError) return cause;
  const status = (cause as { status?: number } | null)?.status;
  const where = redacted(url);
  if (status === 401 || status === 403) {
    return new VmemError('SYNC_UNAUTHORIZED', `The sync server at ${where} refused the credentials (HTTP ${status}); check the user and password in the URL (or the Authorization header) and that the user may write the database.`, { cause });
  }
  if (status === 409) return new VmemError('SYNC_CONFLICT', `The sync server at ${where} rejected a write as a conflict; sync again (the conflict rule settles it on the next pass).`, { cause });
  if (status !== undefined && status >= 400 && status < 500) {
    return new VmemError('SYNC_CONFLICT', `The sync server at ${where} refused the request (HTTP ${status}: ${(cause as Error).message}); check that the URL names a CouchDB database this memory syncs with.`, { cause });
  }
  return new VmemError('SYNC_UNREACHABLE', `The sync server at ${where} cannot be reached (${(cause as Error | null)?.message ?? String(cause)}); check the URL and the network, then sync again: it resumes where it stopped.`, { cause });
}
