import { compileFilter } from '../core/filter.js';
import { planQuery } from '../core/plan.js';
import { assembleResult, rankPlan, type EncodedQuery, type IndexView } from '../core/run.js';
import { warmTimeExpressions } from '../core/time-expressions.js';
import { errorCode, VmemError } from '../errors.js';
import { pictureTypeOf, withVettedType } from '../images/image-format.js';
import { Lanes } from '../lanes/lanes.js';
import { roundDocument } from '../lanes/segment.js';
import { normalize } from '../lanes/vector-matrix.js';
import { createNoneProvider } from '../llm/none.js';
import { DEFAULT_MAX_TEXT_CHARS, keepsFloatVectors, normalizeRetrievalOptions, type MemoryOptions, type NormalizedRetrievalOptions, type RetrievalOptions } from '../options.js';
import type { ImageDescriber } from '../describe/types.js';
import type { ProgressCallback, ProgressTask } from '../progress.js';
import { createInMemoryStorage } from '../storage/memory-storage.js';
import { roundFacts, type MemorySnapshot, type MemoryStorage, type RoundRecord, type StoredImage } from '../storage/types.js';
import { imagesOf, type EncoderIds, type Query, type RetrievalResult, type RoundInput, type StoredRound, type StoredUnit } from '../types.js';
import { createSerialQueue } from '../util/serial-queue.js';
import { yieldTask } from '../util/yield-task.js';
import { sealedKeyOf } from '../storage/encrypted-storage.js';
import type { IncomingRound, SyncHandle, SyncOptions, SyncPort, SyncState } from '../sync/types.js';
import { answerWithMemory } from './answer.js';
import { encodeRecords, encodeUnits, type RoundToEncode } from './encode-units.js';
import { describePrepared, describeStored, emptyDescription, VISION_LLM_DESCRIBER, withDerived, type DescribeRun } from './derived.js';
import { History } from './history.js';
import { prepareRounds, unitSpecsOf, type PreparedRound, type UnitSpec } from './ingest.js';
import { describeEncoders, encoderIdsOf, newManifest, sameEncoders } from './manifest.js';
import { planMerge } from './merge-policy.js';
import { canEncodeQueryImage, encodeQuery, encodeQueryImage, type QueryEncoders } from './query.js';
import { RoundCache } from './round-cache.js';
import { applyPatch } from './round-patch.js';
import { attachCommitted, indexChange, indexCorrupt, isLostRace, withDead, writeSegment } from './segments.js';
import type { AddOptions, AnswerOptions, AnswerResult, DescribePendingOptions, Memory, RoundPatch, RoundsPage, SetCaptionOptions, SignalSearch, UnitHit } from './types.js';

/** Rounds indexed per segment when opening builds the index (an older memory, an import, a damaged segment). */
const REBUILD_BATCH = 2_000;

/**
 * Opens (or starts) a memory over the given storage. Reads the index segments and the rounds' facts,
 * so nothing is tokenized or encoded again; a memory stored without an index (by an older vmem, or
 * imported from a file) gets one built once, with progress (task `index`). Refuses a memory built
 * by other encoders unless `onEncoderMismatch: 'reindex'`.
 * @example
 * const memory = await createMemory({ textEncoder, imageEncoder });
 * await memory.add({ user: { text: 'Here is my cat', images: [{ bytes, mimeType: 'image/jpeg' }] } });
 * const result = await memory.retrieve('which photo showed the cat?');
 */
export async function createMemory(options: MemoryOptions): Promise<Memory> {
  if (!options?.textEncoder) throw new VmemError('INVALID_INPUT', 'createMemory needs a textEncoder, e.g. the embedded USE-Lite encoder.');
  const storage = options.storage ?? createInMemoryStorage();
  const encoders = encoderIdsOf(options.textEncoder, options.imageEncoder, options.describer);
  const manifest = await storage.readManifest();
  if (manifest?.encryption) {
    throw new VmemError('PASSPHRASE_REQUIRED', `${storage.label} is encrypted; open it with its passphrase (the \`encryption\` option) to read it.`);
  }
  const memory = new MemoryImpl(options, storage, encoders);
  if (manifest && !sameEncoders(manifest.encoders, encoders)) {
    if (options.onEncoderMismatch !== 'reindex') {
      throw new VmemError(
        'ENCODER_MISMATCH',
        `This memory was built with ${describeEncoders(manifest.encoders)} but was opened with ${describeEncoders(encoders)}. ` +
          `Open it with the same encoders, or pass onEncoderMismatch: 'reindex' to re-encode every stored round with the new ones.`,
      );
    }
    await memory.reindex();
  } else {
    if (!manifest) await storage.writeManifest(newManifest(encoders));
    else if (manifest.encoders.describer?.id !== encoders.describer?.id) await storage.writeManifest({ ...manifest, encoders });
    await memory.load();
  }
  memory.resumeDescriptionsSoon();
  return memory;
}

/**
 * How long after opening a memory its interrupted description job resumes: the describer's first
 * picture loads its model (about 0.6 s in the browser here), and a first question asked meanwhile
 * waited for it in the encoder worker's queue (cold start's first retrieval took 0.57-0.92 s
 * instead of 0.05-0.1 s).
 */
const RESUME_DESCRIPTIONS_AFTER_MS = 3_000;

/** Reads a memory made by `createMemory` whole: rounds, units with their vectors, image bytes (for `.vmem` export). */
export function memoryContents(memory: Memory): Promise<MemorySnapshot> {
  if (!(memory instanceof MemoryImpl)) throw new VmemError('INVALID_INPUT', 'Only a memory made by createMemory or openMemory can be exported.');
  return memory.contents();
}

/** The storage a memory made by `createMemory` keeps its rounds in (an export asks whether it is encrypted). */
export function storageOf(memory: Memory): MemoryStorage {
  if (!(memory instanceof MemoryImpl)) throw new VmemError('INVALID_INPUT', 'Only a memory made by createMemory or openMemory can be exported.');
  return memory.storage;
}

/**
 * The memory: a history of rounds (their facts in memory, the rounds themselves in storage behind a
 * bounded cache), the lanes that search its index segments, and the storage that keeps both. Writes
 * run one at a time, encode before they store, and touch the in-page state only after storage
 * accepted them, so a failed write leaves everything as it was. A background merge keeps the
 * segments few.
 */
class MemoryImpl implements Memory {
  readonly encoders: EncoderIds;
  private readonly options: MemoryOptions;
  readonly storage: MemoryStorage;
  private readonly queryEncoders: QueryEncoders;
  private readonly maxTextChars: number;
  private readonly defaults: NormalizedRetrievalOptions;
  private lanes: Lanes;
  private history = new History();
  private readonly cache: RoundCache;
  private closed = false;
  private readonly writes = createSerialQueue();
  /** The description job while it runs (see `describePending`). */
  private describing: Promise<DescribeRun> | undefined;
  /** The background merge while it runs. */
  private merging: Promise<void> | undefined;
  /** The timer that resumes the description job after opening (`resumeDescriptionsSoon`). */
  private resumeTimer: ReturnType<typeof setTimeout> | undefined;
  /** Who hears of each write (a running sync, see `sync`). */
  private readonly writeListeners = new Set<(roundIds: readonly string[]) => void>();
  /** The memory as src/sync sees it, made on the first `sync`. */
  private port: SyncPort | undefined;
  /** When each round was last written in this page or process: a sync started later still times the edits before it. */
  private readonly writeTimes = new Map<string, number>();
  /** Cancels each sync running on this memory (`close` stops them). */
  private readonly syncs = new Set<() => void>();
  private lastSyncState: SyncState = { status: 'idle', pushed: 0, pulled: 0, forgotten: 0, reencoded: 0, conflicts: 0 };

  constructor(options: MemoryOptions, storage: MemoryStorage, encoders: EncoderIds) {
    this.options = options;
    this.storage = storage;
    this.encoders = encoders;
    this.queryEncoders = {
      text: options.textEncoder,
      image: options.imageEncoder,
      llm: options.llm ?? createNoneProvider(),
      imageResizer: options.imageResizer,
      describer: options.describer,
    };
    this.maxTextChars = options.maxTextChars === undefined ? DEFAULT_MAX_TEXT_CHARS : options.maxTextChars;
    this.defaults = normalizeRetrievalOptions(options.retrieval);
    this.lanes = this.newLanes();
    this.cache = new RoundCache(storage);
  }

  get size(): number {
    return this.history.size;
  }

  /**
   * Opens what storage holds: the rounds' facts and the committed segments. Whatever the segments do
   * not cover (rounds stored without an index, a damaged segment's rounds, segments without this
   * memory's word table) is indexed now, once, and stored, so the next open reads it.
   */
  async load(reencode = false): Promise<void> {
    // A task of its own: it runs while storage reads (IndexedDB, files), and after an in-memory open.
    if (this.defaults.timeExpressions) setTimeout(warmTimeExpressions, 0);
    const state = await this.storage.open();
    const lanes = this.newLanes();
    const damaged = await attachCommitted(this.storage, lanes, state.index);
    this.history = new History(state.rounds);
    this.lanes = lanes;
    this.cache.clear();
    // Of 100,000 rounds, the history took 15-20 ms, in the task that went on to the caller's first retrieval.
    await yieldTask();
    const missing = state.rounds.filter((round) => !lanes.has(round.id)).map((round) => round.id);
    // Indexed rounds that are not stored (no crash causes that, but nothing may be returned that is not there).
    const stored = lanes.size > state.rounds.length - missing.length ? new Set(state.rounds.map((round) => round.id)) : undefined;
    const strays = stored ? lanes.roundIds().filter((id) => !stored.has(id)) : [];
    const onProgress = this.options.onProgress;
    if (damaged.length > 0 || strays.length > 0) {
      const error = indexCorrupt(this.storage.label, damaged, strays);
      onProgress?.({ status: 'initiate', task: 'index' });
      onProgress?.({ status: 'failed', task: 'index', code: error.code, message: error.message });
    }
    for (const id of strays) lanes.kill(id);
    const unindexed = new Set(state.unindexed);
    const wordless = lanes.segmentsWithoutWords();
    const task: ProgressTask = reencode ? 'reindex' : 'index';
    if (missing.length === 0 && wordless.length === 0) {
      if (damaged.length > 0 || strays.length > 0) await this.storage.writeIndex(indexChange(lanes.entries()));
      return;
    }
    await reportFailure(task, onProgress, async () => {
      onProgress?.({ status: 'initiate', task });
      const total = missing.length + wordless.reduce((sum, id) => sum + lanes.entries().find((entry) => entry.id === id)!.rounds, 0);
      let loaded = 0;
      const progressed = (rounds: number) => onProgress?.({ status: 'progress', task, loaded: (loaded += rounds), total, unit: 'rounds' });
      for (let start = 0; start < missing.length; start += REBUILD_BATCH) {
        const batch = missing.slice(start, start + REBUILD_BATCH);
        const fromStored = reencode ? [] : batch.filter((id) => unindexed.has(id));
        const units = fromStored.length > 0 ? await this.storage.readUnits(fromStored) : [];
        const toEncode = batch.filter((id) => reencode || !unindexed.has(id));
        const encoded = toEncode.length > 0 ? await this.encodeStored(toEncode) : [];
        const unitsOf = groupBy([...units, ...encoded], (unit) => unit.roundId);
        const segment = await writeSegment(lanes.build(batch.map((id) => ({ id, units: unitsOf.get(id) ?? [] }))));
        await this.storage.writeIndex(indexChange(lanes.entries(), segment), batch.filter((id) => unindexed.has(id)));
        lanes.attach(segment.id, segment.data);
        progressed(batch.length);
      }
      for (const id of wordless) {
        const rounds = await this.cache.load(lanes.liveRoundsOf(id));
        const { data, slots } = lanes.mergeData([id], (roundId) => documentOf(rounds.get(roundId)));
        const segment = data.roundIds.length > 0 ? await writeSegment(data) : undefined;
        await this.storage.writeIndex({ add: segment ? [{ id: segment.id, bytes: segment.bytes }] : [], commit: { segments: lanes.entriesAfterMerge([id], segment?.id ?? '', slots) } });
        lanes.replace([id], segment?.id ?? '', data, slots);
        progressed(slots.length);
      }
      onProgress?.({ status: 'done', task });
    });
  }

  /** Re-encodes every stored round with the current encoders and rewrites the manifest. */
  async reindex(): Promise<void> {
    // The old vectors go first: a reindex cut short leaves rounds without an index, which the next open re-encodes.
    await this.storage.writeIndex({ add: [], commit: { segments: [] } });
    await this.storage.writeManifest(newManifest(this.encoders));
    await this.load(true);
  }

  add(rounds: RoundInput | readonly RoundInput[], addOptions: AddOptions = {}): Promise<StoredRound[]> {
    this.assertOpen();
    const inputs: readonly RoundInput[] = Array.isArray(rounds) ? rounds : [rounds as RoundInput];
    const onProgress = addOptions.onProgress ?? this.options.onProgress;
    const describer = this.options.describer;
    const mode = addOptions.describe ?? this.options.describe ?? 'wait';
    const added = this.writes.run(() =>
      reportFailure('ingest', onProgress, async () => {
        const checked = prepareRounds(inputs, {
          maxTextChars: this.maxTextChars,
          nextSeq: this.history.nextSeq(),
          isKnownRound: (id) => this.history.has(id),
          isKnownImage: (id) => this.history.hasImage(id),
        });
        const prepared = describer && mode === 'wait' ? await this.describeBeforeStoring(checked, describer, onProgress) : checked;
        const records = await encodeRecords(prepared, this.queryEncoders, 'ingest', onProgress);
        await this.storeRounds(records);
        onProgress?.({ status: 'done', task: 'ingest' });
        return records.map((record) => record.round);
      }),
    );
    if (describer && mode === 'background') void added.then(() => this.resumeDescriptions(onProgress), () => undefined);
    return added;
  }

  describePending(options: DescribePendingOptions = {}): Promise<DescribeRun> {
    this.assertOpen();
    const describer = this.options.describer;
    if (!describer) {
      return Promise.reject(new VmemError('INVALID_INPUT', 'This memory has no describer; pass one to createMemory (e.g. createNodeImageDescriber() from vmem/node).'));
    }
    const onProgress = options.onProgress ?? this.options.onProgress;
    this.describing ??= reportFailure('describe', onProgress, () => this.describeAll(describer, onProgress)).finally(() => {
      this.describing = undefined;
    });
    return this.describing;
  }

  /** `resumeDescriptions`, a few seconds from now (see RESUME_DESCRIPTIONS_AFTER_MS); a process may exit meanwhile. */
  resumeDescriptionsSoon(): void {
    if (!this.hasPicturesToDescribe()) return;
    this.resumeTimer = setTimeout(() => this.resumeDescriptions(), RESUME_DESCRIPTIONS_AFTER_MS);
    (this.resumeTimer as { unref?: () => void }).unref?.();
  }

  /**
   * Starts the description job when pictures await a description. Nobody waits for this start, so its
   * failure is not thrown anywhere: it reaches `onProgress` as `failed` (with the error's code), and a
   * later `describePending()` tries again.
   */
  resumeDescriptions(onProgress?: DescribePendingOptions['onProgress']): void {
    if (this.closed || !this.hasPicturesToDescribe()) return;
    this.describePending(onProgress ? { onProgress } : {}).catch(() => undefined);
  }

  private hasPicturesToDescribe(): boolean {
    const describer = this.options.describer;
    return describer !== undefined && this.history.awaitingDescription(describer.id).length > 0;
  }

  update(roundId: string, patch: RoundPatch): Promise<StoredRound> {
    this.assertOpen();
    return this.writes.run(async () => {
      const round = this.history.has(roundId) ? await this.cache.get(roundId) : undefined;
      if (!round) throw new VmemError('UNKNOWN_ROUND', `No round "${roundId}" in this memory; it may have been forgotten.`);
      return this.replaceRound(round, applyPatch(round, patch, this.maxTextChars));
    });
  }

  setCaption(imageId: string, caption: string, options: SetCaptionOptions = {}): Promise<StoredRound> {
    this.assertOpen();
    return this.writes.run(async () => {
      const text = typeof caption === 'string' ? caption.trim() : '';
      if (!text) throw new VmemError('INVALID_INPUT', `The caption for image "${imageId}" is empty; pass a description.`);
      const roundId = this.history.roundOfImage(imageId);
      const round = roundId === undefined ? undefined : await this.cache.get(roundId);
      if (!round) throw new VmemError('UNKNOWN_IMAGE', `No image "${imageId}" in this memory; it may have been forgotten.`);
      const role = round.user.images.some((image) => image.id === imageId) ? 'user' : 'assistant';
      const captioned = applyPatch(round, { [role]: { captions: { [imageId]: text } } }, this.maxTextChars);
      // A vision LLM's description stands in for the offline one, which would only repeat it less well.
      const updated = options.source === 'vision-llm' ? withDerived(captioned, imageId, emptyDescription(VISION_LLM_DESCRIBER)) : captioned;
      return this.replaceRound(round, updated);
    });
  }

  async retrieve(query: Query | string, options: RetrievalOptions = {}): Promise<RetrievalResult> {
    this.assertOpen();
    const normalizedQuery = typeof query === 'string' ? { text: query } : query;
    const text = normalizedQuery?.text?.trim() ?? '';
    const image = normalizedQuery?.image && withVettedType(normalizedQuery.image, QUERY_PICTURE);
    if (!text && !image) throw new VmemError('EMPTY_QUERY', 'The query has neither text nor an image; type a question or attach a picture.');
    if (text.length > this.maxTextChars) {
      throw new VmemError('TEXT_TOO_LONG', `The question is ${text.length} characters; the limit is ${this.maxTextChars}. Shorten it.`);
    }
    const settings = normalizeRetrievalOptions(options, this.defaults);
    const { llm } = this.queryEncoders;
    const plan = planQuery(
      {
        text,
        hasImage: image !== undefined,
        imageBytes: image?.bytes !== undefined,
        imageReadable: image !== undefined && canEncodeQueryImage(this.queryEncoders, image),
        ...(image?.caption ? { imageCaption: image.caption } : {}),
      },
      {
        imageLane: this.queryEncoders.image !== undefined,
        wordVectors: this.options.wordVectors !== undefined,
        llm: settings.llmAnchors && llm.available,
        vision: llm.vision,
        describer: settings.llmAnchors && this.queryEncoders.describer !== undefined,
      },
      settings,
    );
    const encoded = await encodeQuery(this.queryEncoders, text, image, plan.needs);
    // BM25 over single units (ablations only) reads every round's texts once, the first time.
    if (!(settings.bm25Over === 'round' && settings.granularity === 'round')) await this.prepareUnitIndex();
    const lanes = this.lanes;
    lanes.prepareDense(queryTextVectors(encoded), encoded.imageVector ? [encoded.imageVector] : []);
    let ranked;
    try {
      ranked = rankPlan(this.view(), plan, encoded, settings);
    } finally {
      lanes.endQuery();
    }
    return assembleResult(ranked, await this.cache.load(ranked.roundIds));
  }

  answer(query: Query | string, options: AnswerOptions = {}): Promise<AnswerResult> {
    this.assertOpen();
    return answerWithMemory(
      {
        llm: this.queryEncoders.llm,
        retrieve: (q, o) => this.retrieve(q, o),
        getImage: (id) => this.getImage(id),
        ...(this.options.imageResizer ? { imageResizer: this.options.imageResizer } : {}),
      },
      typeof query === 'string' ? { text: query } : query,
      options,
    );
  }

  async search(request: SignalSearch): Promise<UnitHit[]> {
    this.assertOpen();
    const limit = request.limit === undefined ? 20 : request.limit;
    if (!Number.isInteger(limit) || limit < 1) throw new VmemError('INVALID_INPUT', `search limit must be a whole number of at least 1, got ${String(limit)}.`);
    const roundFilter = compileFilter(request.filter);
    const history = this.history;
    const accept =
      request.roundIds || roundFilter
        ? (roundId: string) => (!request.roundIds || request.roundIds.has(roundId)) && (!roundFilter || roundFilter(history.get(roundId)!))
        : undefined;
    if (request.signal === 'bm25') {
      await this.prepareUnitIndex();
      return this.lanes.bm25(request.text ?? '', limit, accept);
    }
    if (request.signal === 'similar-words') {
      if (!this.options.wordVectors) throw new VmemError('INVALID_INPUT', 'This memory has no word vectors; pass wordVectors to createMemory (loadNodeWordVectors() in vmem/node).');
      return this.lanes.similarWords(request.text ?? '', limit, accept);
    }
    if (request.signal === 'image') {
      if (!request.image) throw new VmemError('EMPTY_QUERY', 'An image search needs a query image.');
      const vector = await encodeQueryImage(this.queryEncoders, withVettedType(request.image, QUERY_PICTURE));
      return vector ? this.lanes.image(vector, limit, accept) : [];
    }
    if (!request.text?.trim()) throw new VmemError('EMPTY_QUERY', `A ${request.signal} search needs query text.`);
    const [vector] = await this.queryEncoders.text.embed([request.text]);
    return this.lanes.dense(normalize(vector!), limit, accept, request.signal === 'caption-dense');
  }

  has(roundId: string): boolean {
    return this.history.has(roundId);
  }

  get(roundId: string): Promise<StoredRound | undefined> {
    return this.history.has(roundId) ? this.cache.get(roundId) : Promise.resolve(undefined);
  }

  async rounds(page: RoundsPage = {}): Promise<StoredRound[]> {
    const from = page.from === undefined ? 0 : page.from;
    const limit = page.limit === undefined ? this.history.size : page.limit;
    if (!Number.isInteger(from) || from < 0 || !Number.isInteger(limit) || limit < 0) {
      throw new VmemError('INVALID_INPUT', `rounds() takes whole numbers from ≥ 0 and limit ≥ 0, got ${JSON.stringify(page)}.`);
    }
    const ids = this.history.rounds.slice(from, from + limit).map((round) => round.id);
    const read = await this.cache.load(ids);
    return ids.flatMap((id) => read.get(id) ?? []);
  }

  async getImage(imageId: string): Promise<StoredImage | undefined> {
    const image = await this.storage.getImage(imageId);
    // The bytes decide the type, so even a memory written before types were checked never hands out a non-picture.
    return image && { ...image, mimeType: pictureTypeOf(image.bytes, `image "${imageId}"`, image.mimeType) };
  }

  forget(roundId: string): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      const where = this.lanes.locate(roundId);
      if (!this.history.has(roundId)) {
        throw new VmemError('UNKNOWN_ROUND', `No round "${roundId}" in this memory; it may have been forgotten already.`);
      }
      await this.storage.deleteRounds([roundId], indexChange(withDead(this.lanes.entries(), where ? [where] : [])));
      this.lanes.kill(roundId);
      this.history.remove(roundId);
      this.cache.delete(roundId);
      this.scheduleMerge();
      this.notifyWrite([roundId]);
    });
  }

  /**
   * Replicates with a CouchDB database (src/sync, loaded on the first call). The handle settles a
   * one-shot sync, and pauses, resumes or cancels either kind.
   */
  sync(options: SyncOptions): SyncHandle {
    this.assertOpen();
    if (!options || typeof options.url !== 'string' || options.url === '') throw new VmemError('INVALID_INPUT', 'sync needs the URL of a CouchDB database, e.g. { url: "http://127.0.0.1:5984/memory" }.');
    this.port ??= this.syncPort();
    const port = this.port;
    const started = import('../sync/session.js').then(({ startSync }) => startSync(port, options, (state) => (this.lastSyncState = state)));
    const done = started.then((handle) => handle.done);
    done.catch(() => undefined);
    const cancel = () => void started.then((handle) => handle.cancel(), () => undefined);
    this.syncs.add(cancel);
    void done.finally(() => this.syncs.delete(cancel)).catch(() => undefined);
    return {
      done,
      pause: () => void started.then((handle) => handle.pause(), () => undefined),
      resume: () => void started.then((handle) => handle.resume(), () => undefined),
      cancel,
    };
  }

  syncState(): SyncState {
    return this.lastSyncState;
  }

  private notifyWrite(roundIds: readonly string[]): void {
    const now = Date.now();
    for (const id of roundIds) this.writeTimes.set(id, now);
    for (const listener of this.writeListeners) listener(roundIds);
  }

  /** What src/sync reads and writes of this memory. */
  private syncPort(): SyncPort {
    return {
      label: this.storage.label,
      encoders: this.encoders,
      encrypted: sealedKeyOf(this.storage) !== undefined,
      roundIds: () => this.history.rounds.map((round) => round.id),
      getRounds: async (ids) => {
        const read = await this.cache.load(ids.filter((id) => this.history.has(id)));
        return ids.map((id) => read.get(id));
      },
      unitsOf: (round) =>
        unitSpecsOf(round).flatMap((spec) => {
          const vector = this.lanes.unit(spec.id)?.roundId === round.id ? this.lanes.vectorOf(spec.id) : undefined;
          return vector ? [{ ...spec, lane: spec.kind === 'image' ? ('image' as const) : ('text' as const), vector }] : [];
        }),
      getImage: (id) => this.getImage(id),
      writtenAt: (id) => this.writeTimes.get(id),
      applyRemote: (put, forget) => this.writes.run(() => this.applyRemote(put, forget)),
      onWrite: (listener) => {
        this.writeListeners.add(listener);
        return () => this.writeListeners.delete(listener);
      },
    };
  }

  /**
   * Another device's changes: forgotten rounds go, received rounds are stored with the units they
   * came with (encoded here only when their encoders differ), in this history's own order.
   */
  private async applyRemote(put: readonly IncomingRound[], forget: readonly string[]): Promise<{ reencoded: number }> {
    const gone = forget.filter((id) => this.history.has(id));
    if (gone.length > 0) {
      const where = gone.flatMap((id) => this.lanes.locate(id) ?? []);
      await this.storage.deleteRounds(gone, indexChange(withDead(this.lanes.entries(), where)));
      for (const id of gone) {
        this.lanes.kill(id);
        this.history.remove(id);
        this.cache.delete(id);
      }
    }
    const places = placesInTime(this.history.rounds, put.filter((item) => !this.history.has(item.round.id)).map((item) => item.round));
    const ready: RoundRecord[] = [];
    const toEncode: RoundToEncode[] = [];
    for (const item of put) {
      const round = { ...item.round, seq: this.history.get(item.round.id)?.seq ?? places.get(item.round.id)! };
      if (item.units) ready.push({ round, units: item.units, images: item.images });
      else toEncode.push({ round, images: item.images });
    }
    const encoded = toEncode.length > 0 ? await encodeRecords(toEncode, this.queryEncoders, 'ingest', undefined) : [];
    const records = [...ready, ...encoded].sort((a, b) => a.round.seq - b.round.seq);
    if (records.length > 0) await this.storeRounds(records);
    if (gone.length > 0) this.scheduleMerge();
    return { reencoded: toEncode.length };
  }

  clear(): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      await this.storage.clear();
      await this.storage.writeManifest(newManifest(this.encoders));
      this.lanes = this.newLanes();
      this.history = new History();
      this.cache.clear();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.resumeTimer);
    for (const cancel of this.syncs) cancel();
    // Let writes already queued finish before the storage goes away.
    await this.writes.run(async () => undefined);
    // The background merge finishes first (a few seconds at most after a large import), so the next
    // open reads a settled index.
    await this.merging;
    // The description job stops at its next picture; its outcome already went to whoever awaited it.
    await this.describing?.catch(() => undefined);
    await this.storage.close();
  }

  /** Everything stored, read whole (an export): every round, its units with vectors, its pictures' bytes. */
  async contents(): Promise<MemorySnapshot> {
    const manifest = await this.storage.readManifest();
    if (!manifest) throw new VmemError('INVALID_INPUT', 'This memory is empty (no manifest yet); add a round before exporting it.');
    const rounds = await this.rounds();
    const textOf = new Map(rounds.flatMap((round) => unitSpecsOf(round).map((spec) => [spec.id, spec.text] as const)));
    const units: StoredUnit[] = [];
    for (const unit of this.lanes.allUnits()) {
      const text = textOf.get(unit.id);
      units.push({ ...unit, ...(text !== undefined ? { text } : {}) });
    }
    const images: (StoredImage & { roundId: string })[] = [];
    for (const round of rounds) {
      for (const ref of imagesOf(round)) {
        if (!ref.hasBytes) continue;
        const image = await this.getImage(ref.id);
        if (!image) {
          throw new VmemError('STORAGE_FAILED', `Image ${ref.id} of round ${round.id} is missing from storage; the export was stopped so it is not silently incomplete.`);
        }
        images.push({ ...image, roundId: round.id });
      }
    }
    return { manifest, rounds, units, images };
  }

  private assertOpen(): void {
    if (this.closed) throw new VmemError('CLOSED', 'This memory is closed; open it again with createMemory.');
  }

  private newLanes(): Lanes {
    return new Lanes(this.encoders.text.dimension, this.encoders.image?.dimension, this.options.wordVectors, (roundId) => this.history.indexOf.get(roundId), keepsFloatVectors(this.options));
  }

  /**
   * Stores encoded rounds in one atomic write: their records, and a new segment holding their index.
   * New ids are appended to the history; an id already stored (a reindex) is replaced in place.
   */
  private async storeRounds(records: readonly RoundRecord[]): Promise<void> {
    const lanes = this.lanes;
    // Only a sync stores a round over one already held (another device's edit of it).
    const replaced = records.filter((record) => this.history.has(record.round.id));
    const where = replaced.flatMap((record) => lanes.locate(record.round.id) ?? []);
    const segment = await writeSegment(lanes.build(records.map((record) => ({ id: record.round.id, units: record.units }))));
    await this.storage.putRounds(
      records.map((record) => ({ ...record, units: [] })),
      indexChange(where.length > 0 ? withDead(lanes.entries(), where) : lanes.entries(), segment),
    );
    for (const record of replaced) lanes.kill(record.round.id);
    lanes.attach(segment.id, segment.data, [], lanes.unitIndexReady ? unitTexts(records) : undefined);
    for (const record of replaced) this.history.replace(roundFacts(record.round));
    this.history.insert(records.filter((record) => !replaced.includes(record)).map((record) => roundFacts(record.round)));
    for (const record of records) this.cache.put(record.round);
    this.scheduleMerge();
    this.notifyWrite(records.map((record) => record.round.id));
  }

  /** `add`'s `'wait'` mode: describes the batch's pictures, reporting task `describe` per picture. */
  private async describeBeforeStoring(prepared: PreparedRound[], describer: ImageDescriber, onProgress: ProgressCallback | undefined): Promise<PreparedRound[]> {
    if (!prepared.some((item) => item.images.length > 0)) return prepared;
    return reportFailure('describe', onProgress, async () => {
      onProgress?.({ status: 'initiate', task: 'describe' });
      const described = await describePrepared(prepared, describer, (loaded, total) =>
        onProgress?.({ status: 'progress', task: 'describe', loaded, total, unit: 'images' }),
      );
      onProgress?.({ status: 'done', task: 'describe' });
      return described;
    });
  }

  /**
   * The description job: one picture at a time, oldest first, each stored as soon as it is described
   * (so an interrupted job keeps what it did, and the next open resumes with the rest). Pictures
   * added, edited or forgotten meanwhile are taken as they are when their turn comes.
   */
  private async describeAll(describer: ImageDescriber, onProgress: ProgressCallback | undefined): Promise<DescribeRun> {
    onProgress?.({ status: 'initiate', task: 'describe' });
    const run = { described: 0, unreadable: 0 };
    for (;;) {
      const next = this.history.awaitingDescription(describer.id)[0];
      if (!next || this.closed) break;
      // A picture that cannot be read is marked described with nothing seen, so no later run retries it.
      let derived = emptyDescription(describer.id);
      let readable = false;
      try {
        const stored = await this.getImage(next.imageId);
        if (stored) {
          derived = await describeStored(describer, stored);
          readable = true;
        }
      } catch (error) {
        const code = errorCode(error);
        if (code !== 'IMAGE_DECODE_FAILED' && code !== 'UNSUPPORTED_FILE') throw error;
      }
      const written = await this.writes.run(async () => {
        // Forgotten meanwhile, or the memory closed: nothing to write (the loop then moves on or stops).
        const roundId = this.history.roundOfImage(next.imageId);
        const round = this.closed || roundId === undefined ? undefined : await this.cache.get(roundId);
        if (!round) return false;
        await this.replaceRound(round, withDerived(round, next.imageId, derived));
        return true;
      });
      if (written && readable) run.described++;
      else if (written) run.unreadable++;
      const done = run.described + run.unreadable;
      const left = this.history.awaitingDescription(describer.id).length;
      onProgress?.({ status: 'progress', task: 'describe', loaded: done, total: done + left, unit: 'images' });
    }
    onProgress?.({ status: 'done', task: 'describe' });
    return run;
  }

  /**
   * Stores an edited round in place of the old one. Units whose text is unchanged keep their stored
   * vectors, and image units always do: only new or changed text is encoded. The new version goes
   * to a new segment; the old one is marked dead in its segment, in the same write.
   */
  private async replaceRound(round: StoredRound, updated: StoredRound): Promise<StoredRound> {
    const lanes = this.lanes;
    const before = new Map(unitSpecsOf(round).map((spec) => [spec.id, spec]));
    const kept: StoredUnit[] = [];
    const changed = unitSpecsOf(updated).filter((spec) => {
      const old = before.get(spec.id);
      const vector = old && lanes.unit(spec.id)?.roundId === round.id ? lanes.vectorOf(spec.id) : undefined;
      const same = vector !== undefined && (spec.kind === 'image' || old!.text === spec.text);
      if (same) kept.push({ ...spec, lane: spec.kind === 'image' ? 'image' : 'text', vector });
      // An image unit that was never stored (no bytes, no encoder) is not one to make now.
      return !same && spec.kind !== 'image';
    });
    const item: RoundToEncode = { round: updated, images: [] };
    const units = [...kept, ...(await encodeUnits(changed, [item], this.queryEncoders))];
    const segment = await writeSegment(lanes.build([{ id: updated.id, units }]));
    const where = lanes.locate(round.id);
    await this.storage.putRounds(
      [{ round: updated, units: [], images: await this.storedImagesOf(updated) }],
      indexChange(withDead(lanes.entries(), where ? [where] : []), segment),
    );
    lanes.kill(round.id);
    lanes.attach(segment.id, segment.data, [], lanes.unitIndexReady ? unitTexts([{ round: updated, units }]) : undefined);
    this.history.replace(roundFacts(updated));
    this.cache.put(updated);
    this.scheduleMerge();
    this.notifyWrite([updated.id]);
    return updated;
  }

  private async storedImagesOf(round: StoredRound): Promise<StoredImage[]> {
    const refs = imagesOf(round).filter((ref) => ref.hasBytes);
    const images = await Promise.all(refs.map((ref) => this.getImage(ref.id)));
    return images.filter((image): image is StoredImage => image !== undefined);
  }

  /**
   * Units (vectors included) of stored rounds, encoded anew from their texts and image bytes. A stored
   * file that is not a picture (an older vmem kept whatever it was given) gets no image vector; it is
   * not handed out either (`getImage`), and the rebuild goes on without it.
   */
  private async encodeStored(roundIds: readonly string[]): Promise<StoredUnit[]> {
    const read = await this.cache.load(roundIds);
    const picture = (id: string) =>
      this.getImage(id).catch((error: unknown) => {
        if (errorCode(error) === 'UNSUPPORTED_FILE') return undefined;
        throw error;
      });
    const items = await Promise.all(
      roundIds.flatMap((id) => {
        const round = read.get(id);
        if (!round) return [];
        const refs = imagesOf(round).filter((ref) => ref.hasBytes);
        return [Promise.all(refs.map((ref) => picture(ref.id))).then((images) => ({ round, images: images.filter((image): image is StoredImage => image !== undefined) }))];
      }),
    );
    const records = await encodeRecords(items, this.queryEncoders, 'reindex', undefined);
    return records.flatMap((record) => record.units);
  }

  /** BM25 over single units, built from every round's texts the first time it is needed. */
  private async prepareUnitIndex(): Promise<void> {
    const lanes = this.lanes;
    if (lanes.unitIndexReady) return;
    await lanes.prepareUnitIndex(async (unitIds) => {
      const roundIds = [...new Set(unitIds.map((unitId) => lanes.unit(unitId)!.roundId))];
      const rounds = await this.cache.load(roundIds);
      const texts = new Map<string, string>();
      for (const round of rounds.values()) for (const spec of unitSpecsOf(round)) if (spec.text !== undefined) texts.set(spec.id, spec.text);
      return texts;
    });
  }

  /** Starts the background merge when the policy wants one and none runs. */
  private scheduleMerge(): void {
    if (this.merging) return;
    // A merge that fails leaves the index as it was (still correct, only less merged); the next write tries again.
    this.merging = this.runMerges()
      .catch((error: unknown) => {
        if (!isLostRace(error) && errorCode(error) === undefined) throw error;
      })
      .finally(() => {
        this.merging = undefined;
      });
  }

  /**
   * Merges while the policy asks for it. The merged segment is built from what the lanes hold (no
   * storage read) outside the write queue, so writes go on meanwhile; it is stored in the queue,
   * with whatever died in between marked dead in it.
   */
  private async runMerges(): Promise<void> {
    for (;;) {
      // Let the write that asked for it (and whatever is queued behind it) go first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const lanes = this.lanes;
      const plan = planMerge(lanes.entries());
      if (!plan) return;
      const { data, slots } = lanes.mergeData(plan);
      const segment = data.roundIds.length > 0 ? await writeSegment(data) : undefined;
      const stored = await this.writes.run(async () => {
        if (this.lanes !== lanes) return false;
        const commit = lanes.entriesAfterMerge(plan, segment?.id ?? '', slots);
        await this.storage.writeIndex({ add: segment ? [{ id: segment.id, bytes: segment.bytes }] : [], commit: { segments: commit } });
        lanes.replace(plan, segment?.id ?? '', data, slots);
        return true;
      });
      if (!stored) return;
    }
  }

  private view(): IndexView {
    const lanes = this.lanes;
    const history = this.history;
    return {
      history: history.rounds,
      indexOf: history.indexOf,
      unit: (unitId) => lanes.unit(unitId),
      roundsNearImages: () => history.roundsNearImages(),
      sessionPositions: (sessionId) => history.sessionPositions(sessionId),
      bm25: (text, limit, accept, captionsOnly) => lanes.bm25(text, limit, accept, captionsOnly),
      roundBm25: (text, limit, accept) => lanes.roundBm25(text, limit, accept),
      roundWordFrequencies: (text) => lanes.roundWordFrequencies(text),
      similarWords: (text, limit, accept) => lanes.similarWords(text, limit, accept),
      dense: (vector, limit, accept, captionsOnly) => lanes.dense(vector, limit, accept, captionsOnly),
      image: (vector, limit, accept) => lanes.image(vector, limit, accept),
      textVector: (unitId) => lanes.textVector(unitId),
    };
  }
}

/** The text-lane vectors of an encoded query, scanned together. */
function queryTextVectors(query: EncodedQuery): Float32Array[] {
  return [query.questionVector, query.contentVector, query.captionAnchor?.vector, query.pictureWords?.vector].filter((vector): vector is Float32Array => vector !== undefined);
}

/** A stored round's BM25 and similar-words document (what its segment indexed). */
function documentOf(round: StoredRound | undefined): string {
  if (!round) return '';
  return roundDocument(unitSpecsOf(round).map((spec: UnitSpec) => ({ ...spec, lane: spec.kind === 'image' ? 'image' : 'text' })));
}

/**
 * Where received rounds go in this history: by time (then id) among the rounds already held, so
 * every device that syncs puts the same rounds in the same order and finds the same neighbours. A
 * `seq` between two held rounds is their midpoint; when doubles run out between them, the end.
 */
function placesInTime(history: readonly { id: string; timestamp: number; seq: number }[], rounds: readonly StoredRound[]): Map<string, number> {
  const line = history.map((round) => ({ id: round.id, timestamp: round.timestamp, seq: round.seq }));
  const before = (a: { id: string; timestamp: number }, b: { id: string; timestamp: number }) => a.timestamp < b.timestamp || (a.timestamp === b.timestamp && a.id < b.id);
  const places = new Map<string, number>();
  for (const round of [...rounds].sort((a, b) => (before(a, b) ? -1 : 1))) {
    let at = line.length;
    while (at > 0 && before(round, line[at - 1]!)) at--;
    const previous = line[at - 1];
    const next = line[at];
    let seq = next === undefined ? (previous ? previous.seq + 1 : 0) : previous === undefined ? next.seq - 1 : (previous.seq + next.seq) / 2;
    if (previous && next && !(seq > previous.seq && seq < next.seq)) {
      seq = line[line.length - 1]!.seq + 1;
      at = line.length;
    }
    line.splice(at, 0, { id: round.id, timestamp: round.timestamp, seq });
    places.set(round.id, seq);
  }
  return places;
}

/** The texts of records' text units, for BM25 over single units. */
function unitTexts(records: readonly { round: StoredRound; units: readonly StoredUnit[] }[]): Map<string, string> {
  return new Map(records.flatMap((record) => record.units.flatMap((unit) => (unit.lane === 'text' && unit.text !== undefined ? [[unit.id, unit.text] as const] : []))));
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** How errors name a question's attached picture. */
const QUERY_PICTURE = "The question's picture";

/** Runs a task, and reports `failed` before rethrowing when it throws, so progress always ends. */
async function reportFailure<T>(task: ProgressTask, onProgress: ProgressCallback | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const code = errorCode(error);
    onProgress?.({ status: 'failed', task, ...(code ? { code } : {}), message: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}
