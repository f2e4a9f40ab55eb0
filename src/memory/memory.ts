import { compileFilter } from '../core/filter.js';
import { planQuery } from '../core/plan.js';
import { runPlan, type IndexView } from '../core/run.js';
import { errorCode, VmemError } from '../errors.js';
import { pictureTypeOf, withVettedType } from '../images/image-format.js';
import { Lanes } from '../lanes/lanes.js';
import { normalize } from '../lanes/vector-matrix.js';
import { createNoneProvider } from '../llm/none.js';
import { DEFAULT_MAX_TEXT_CHARS, normalizeRetrievalOptions, type MemoryOptions, type NormalizedRetrievalOptions, type RetrievalOptions } from '../options.js';
import type { ImageDescriber } from '../describe/types.js';
import type { ProgressCallback, ProgressTask } from '../progress.js';
import { createInMemoryStorage } from '../storage/memory-storage.js';
import type { MemoryStorage, StoredImage } from '../storage/types.js';
import { imagesOf, type EncoderIds, type Query, type RetrievalResult, type RoundInput, type StoredRound, type StoredUnit } from '../types.js';
import { createSerialQueue } from '../util/serial-queue.js';
import { answerWithMemory } from './answer.js';
import { encodeRecords, encodeUnits, type RoundToEncode } from './encode-units.js';
import { describePrepared, describeStored, emptyDescription, imagesAwaitingDescription, VISION_LLM_DESCRIBER, withDerived, type DescribeRun } from './derived.js';
import { History } from './history.js';
import { prepareRounds, unitSpecsOf, type PreparedRound } from './ingest.js';
import { describeEncoders, encoderIdsOf, newManifest, sameEncoders } from './manifest.js';
import { canEncodeQueryImage, encodeQuery, encodeQueryImage, type QueryEncoders } from './query.js';
import { applyPatch } from './round-patch.js';
import type { AddOptions, AnswerOptions, AnswerResult, DescribePendingOptions, Memory, RoundPatch, SetCaptionOptions, SignalSearch, UnitHit } from './types.js';

/**
 * Opens (or starts) a memory over the given storage. Rebuilds the indexes from stored vectors without
 * re-encoding; refuses a memory built by other encoders unless `onEncoderMismatch: 'reindex'`.
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
  memory.resumeDescriptions();
  return memory;
}

/**
 * The memory: a history of rounds, the lanes that index their units, and the storage that keeps
 * both. Writes run one at a time, encode before they store, and touch the in-page state only after
 * storage accepted them, so a failed write leaves everything as it was.
 */
class MemoryImpl implements Memory {
  readonly encoders: EncoderIds;
  private readonly options: MemoryOptions;
  private readonly storage: MemoryStorage;
  private readonly queryEncoders: QueryEncoders;
  private readonly maxTextChars: number;
  private readonly defaults: NormalizedRetrievalOptions;
  private lanes: Lanes;
  private history = new History();
  private closed = false;
  private readonly writes = createSerialQueue();
  /** The description job while it runs (see `describePending`). */
  private describing: Promise<DescribeRun> | undefined;

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
    this.lanes = new Lanes(encoders.text.dimension, encoders.image?.dimension, options.wordVectors);
  }

  get size(): number {
    return this.history.size;
  }

  async load(): Promise<void> {
    // Storage that reads in stages lets the text index build while vector bytes are still arriving.
    if (this.storage.loadStaged) {
      const { rounds, units, vectors } = await this.storage.loadStaged();
      this.lanes.addFacts(units);
      this.history = new History(rounds);
      this.lanes.addVectors(units, await vectors);
      return;
    }
    const { rounds, units } = await this.storage.loadAll();
    this.lanes.add(units);
    this.history = new History(rounds);
  }

  /** Re-encodes every stored round with the current encoders and rewrites the manifest. */
  reindex(): Promise<void> {
    const onProgress = this.options.onProgress;
    return reportFailure('reindex', onProgress, async () => {
      const { rounds } = await this.storage.loadAll();
      const items = await Promise.all(rounds.map(async (round) => ({ round, images: await this.storedImagesOf(round) })));
      const records = await encodeRecords(items, this.queryEncoders, 'reindex', onProgress);
      await this.storage.putRounds(records);
      await this.storage.writeManifest(newManifest(this.encoders));
      this.lanes = new Lanes(this.encoders.text.dimension, this.encoders.image?.dimension, this.options.wordVectors);
      this.lanes.add(records.flatMap((record) => record.units));
      this.history = new History(rounds);
      onProgress?.({ status: 'done', task: 'reindex' });
    });
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
        await this.storage.putRounds(records);
        this.lanes.add(records.flatMap((record) => record.units));
        this.history = this.history.appended(records.map((record) => record.round));
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

  /**
   * Starts the description job when pictures await a description. Nobody waits for this start, so its
   * failure is not thrown anywhere: it reaches `onProgress` as `failed` (with the error's code), and a
   * later `describePending()` tries again.
   */
  resumeDescriptions(onProgress?: DescribePendingOptions['onProgress']): void {
    const describer = this.options.describer;
    if (this.closed || !describer || imagesAwaitingDescription(this.history.rounds, describer.id).length === 0) return;
    this.describePending(onProgress ? { onProgress } : {}).catch(() => undefined);
  }

  update(roundId: string, patch: RoundPatch): Promise<StoredRound> {
    this.assertOpen();
    return this.writes.run(async () => {
      const round = this.history.get(roundId);
      if (!round) throw new VmemError('UNKNOWN_ROUND', `No round "${roundId}" in this memory; it may have been forgotten.`);
      return this.replaceRound(round, applyPatch(round, patch, this.maxTextChars));
    });
  }

  setCaption(imageId: string, caption: string, options: SetCaptionOptions = {}): Promise<StoredRound> {
    this.assertOpen();
    return this.writes.run(async () => {
      const text = typeof caption === 'string' ? caption.trim() : '';
      if (!text) throw new VmemError('INVALID_INPUT', `The caption for image "${imageId}" is empty; pass a description.`);
      const round = this.history.roundOfImage(imageId);
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
    return runPlan(this.view(), plan, encoded, settings);
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
    if (request.signal === 'bm25') return this.lanes.bm25(request.text ?? '', limit, accept);
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

  get(roundId: string): StoredRound | undefined {
    return this.history.get(roundId);
  }

  rounds(): readonly StoredRound[] {
    return this.history.rounds;
  }

  async getImage(imageId: string): Promise<StoredImage | undefined> {
    const image = await this.storage.getImage(imageId);
    // The bytes decide the type, so even a memory written before types were checked never hands out a non-picture.
    return image && { ...image, mimeType: pictureTypeOf(image.bytes, `image "${imageId}"`, image.mimeType) };
  }

  forget(roundId: string): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      if (!this.history.has(roundId)) {
        throw new VmemError('UNKNOWN_ROUND', `No round "${roundId}" in this memory; it may have been forgotten already.`);
      }
      await this.storage.deleteRound(roundId);
      this.lanes.removeRound(roundId);
      this.history = this.history.without(roundId);
    });
  }

  clear(): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      await this.storage.clear();
      await this.storage.writeManifest(newManifest(this.encoders));
      this.lanes.clear();
      this.history = new History();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Let writes already queued finish before the storage goes away.
    await this.writes.run(async () => undefined);
    // The description job stops at its next picture; its outcome already went to whoever awaited it.
    await this.describing?.catch(() => undefined);
    await this.storage.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new VmemError('CLOSED', 'This memory is closed; open it again with createMemory.');
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
      const next = imagesAwaitingDescription(this.history.rounds, describer.id)[0];
      if (!next || this.closed) break;
      // A picture that cannot be read is marked described with nothing seen, so no later run retries it.
      let derived = emptyDescription(describer.id);
      let readable = false;
      try {
        const stored = await this.getImage(next.id);
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
        const round = this.history.roundOfImage(next.id);
        if (this.closed || !round) return false;
        await this.replaceRound(round, withDerived(round, next.id, derived));
        return true;
      });
      if (written && readable) run.described++;
      else if (written) run.unreadable++;
      const done = run.described + run.unreadable;
      const left = imagesAwaitingDescription(this.history.rounds, describer.id).length;
      onProgress?.({ status: 'progress', task: 'describe', loaded: done, total: done + left, unit: 'images' });
    }
    onProgress?.({ status: 'done', task: 'describe' });
    return run;
  }

  /**
   * Stores an edited round in place of the old one. Units whose text is unchanged keep their stored
   * vectors, and image units always do: only new or changed text is encoded.
   */
  private async replaceRound(round: StoredRound, updated: StoredRound): Promise<StoredRound> {
    const kept: StoredUnit[] = [];
    const changed = unitSpecsOf(updated).filter((spec) => {
      const stored = this.lanes.storedUnit(spec.id);
      const same = stored !== undefined && stored.roundId === round.id && (spec.kind === 'image' || stored.text === spec.text);
      if (same) kept.push(stored);
      // An image unit that was never stored (no bytes, no encoder) is not one to make now.
      return !same && spec.kind !== 'image';
    });
    const item: RoundToEncode = { round: updated, images: [] };
    const units = [...kept, ...(await encodeUnits(changed, [item], this.queryEncoders))];
    await this.storage.putRounds([{ round: updated, units, images: await this.storedImagesOf(updated) }]);
    this.lanes.removeRound(round.id);
    this.lanes.add(units);
    this.history = this.history.replaced(updated);
    return updated;
  }

  private async storedImagesOf(round: StoredRound): Promise<StoredImage[]> {
    const refs = imagesOf(round).filter((ref) => ref.hasBytes);
    const images = await Promise.all(refs.map((ref) => this.getImage(ref.id)));
    return images.filter((image): image is StoredImage => image !== undefined);
  }

  private view(): IndexView {
    const lanes = this.lanes;
    const history = this.history;
    return {
      history: history.rounds,
      indexOf: history.indexOf,
      unit: (unitId) => lanes.unit(unitId),
      roundsNearImages: () => history.roundsNearImages(),
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
