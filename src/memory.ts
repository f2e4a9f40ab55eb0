import type { AddOptions, AnswerOptions, AnswerResult, Memory, SignalSearch, UnitHit } from './api.js';
import { answerWithMemory } from './answer.js';
import { roundsNearImages } from './core/assemble.js';
import { runRetrieval, type EncodedQuery, type IndexView } from './core/retrieve.js';
import { route } from './core/route.js';
import type { ImageEmbedder, ImagePayload, TextEmbedder } from './encoders/types.js';
import { createSerialQueue } from './util/serial-queue.js';
import { errorCode, isLlmError, VmemError } from './errors.js';
import type { ProgressCallback, ProgressTask } from './progress.js';
import { prepareRounds, unitSpecsOf, type UnitSpec } from './ingest.js';
import { Lanes } from './lanes/lanes.js';
import { normalize } from './lanes/vector-matrix.js';
import { captionAnchorPrompt, cleanCaption, imageKeywordsPrompt, parseKeywords } from './llm/prompts.js';
import { createNoneProvider } from './llm/none.js';
import type { LlmProvider } from './llm/types.js';
import { DEFAULT_MAX_TEXT_CHARS, normalizeRetrievalOptions, type MemoryOptions, type RetrievalOptions } from './options.js';
import { createInMemoryStorage } from './storage/memory-storage.js';
import { SCHEMA_VERSION, type Manifest, type MemoryStorage, type RoundRecord, type StoredImage } from './storage/types.js';
import type { EncoderIds, Query, RetrievalResult, RoundInput, StoredRound, StoredUnit } from './types.js';
import { bytesToDataUrl } from './util/data-url.js';

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
  const encoders = encoderIdsOf(options.textEncoder, options.imageEncoder);
  const manifest = await storage.readManifest();
  const memory = new MemoryImpl(options, storage, encoders);
  if (manifest && !sameEncoders(manifest.encoders, encoders)) {
    if (options.onEncoderMismatch !== 'reindex') {
      throw new VmemError(
        'ENCODER_MISMATCH',
        `This memory was built with ${describe(manifest.encoders)} but was opened with ${describe(encoders)}. ` +
          `Open it with the same encoders, or pass onEncoderMismatch: 'reindex' to re-encode every stored round with the new ones.`,
      );
    }
    await memory.reindex();
  } else {
    if (!manifest) await storage.writeManifest(newManifest(encoders));
    await memory.load();
  }
  return memory;
}

function encoderIdsOf(text: TextEmbedder, image: ImageEmbedder | undefined): EncoderIds {
  return {
    text: { id: text.id, dimension: text.dimension },
    ...(image ? { image: { id: image.id, dimension: image.dimension } } : {}),
  };
}

function sameEncoders(a: EncoderIds, b: EncoderIds): boolean {
  return (
    a.text.id === b.text.id &&
    a.text.dimension === b.text.dimension &&
    a.image?.id === b.image?.id &&
    a.image?.dimension === b.image?.dimension
  );
}

function describe(ids: EncoderIds): string {
  return `text encoder "${ids.text.id}" (${ids.text.dimension}-d)` + (ids.image ? ` and image encoder "${ids.image.id}" (${ids.image.dimension}-d)` : ' and no image encoder');
}

function newManifest(encoders: EncoderIds): Manifest {
  return { schemaVersion: SCHEMA_VERSION, encoders, createdAt: Date.now() };
}

class MemoryImpl implements Memory {
  readonly encoders: EncoderIds;
  private readonly textEncoder: TextEmbedder;
  private readonly imageEncoder: ImageEmbedder | undefined;
  private readonly llm: LlmProvider;
  private readonly storage: MemoryStorage;
  private readonly maxTextChars: number;
  private readonly options: MemoryOptions;
  private readonly defaults;
  private lanes: Lanes;
  private history: StoredRound[] = [];
  private indexOf = new Map<string, number>();
  private imageIds = new Set<string>();
  private nearImagesCache: Set<string> | undefined;
  private closed = false;
  // Writes run one at a time so a batch's seq numbers and index updates never interleave.
  private readonly writes = createSerialQueue();

  constructor(options: MemoryOptions, storage: MemoryStorage, encoders: EncoderIds) {
    this.options = options;
    this.textEncoder = options.textEncoder;
    this.imageEncoder = options.imageEncoder;
    this.llm = options.llm ?? createNoneProvider();
    this.storage = storage;
    this.encoders = encoders;
    this.maxTextChars = options.maxTextChars === undefined ? DEFAULT_MAX_TEXT_CHARS : options.maxTextChars;
    this.defaults = normalizeRetrievalOptions(options.retrieval);
    this.lanes = new Lanes(encoders.text.dimension, encoders.image?.dimension);
  }

  get size(): number {
    return this.history.length;
  }

  async load(): Promise<void> {
    // Storage that reads in stages lets the text index build while vector bytes are still arriving.
    if (this.storage.loadStaged) {
      const { rounds, units, vectors } = await this.storage.loadStaged();
      this.lanes.addFacts(units);
      this.setHistory(rounds);
      this.lanes.addVectors(units, await vectors);
      return;
    }
    const { rounds, units } = await this.storage.loadAll();
    this.lanes.add(units);
    this.setHistory(rounds);
  }

  /** Re-encodes every stored round with the current encoders and rewrites the manifest. */
  reindex(): Promise<void> {
    const onProgress = this.options.onProgress;
    return reportFailure('reindex', onProgress, async () => {
      const { rounds } = await this.storage.loadAll();
      const items = await Promise.all(rounds.map(async (round) => ({ round, images: await this.storedImagesOf(round) })));
      const records = await this.encodeRecords(items, 'reindex', onProgress);
      await this.storage.putRounds(records);
      await this.storage.writeManifest(newManifest(this.encoders));
      this.lanes = new Lanes(this.encoders.text.dimension, this.encoders.image?.dimension);
      this.lanes.add(records.flatMap((record) => record.units));
      this.setHistory(rounds);
      onProgress?.({ status: 'done', task: 'reindex' });
    });
  }

  add(rounds: RoundInput | readonly RoundInput[], addOptions: AddOptions = {}): Promise<StoredRound[]> {
    this.assertOpen();
    const inputs: readonly RoundInput[] = Array.isArray(rounds) ? rounds : [rounds as RoundInput];
    return this.enqueueWrite(async () => {
      const onProgress = addOptions.onProgress ?? this.options.onProgress;
      return reportFailure('ingest', onProgress, async () => {
        const prepared = prepareRounds(inputs, {
          maxTextChars: this.maxTextChars,
          nextSeq: this.nextSeq(),
          isKnownRound: (id) => this.indexOf.has(id),
          isKnownImage: (id) => this.imageIds.has(id),
        });
        const records = await this.encodeRecords(prepared, 'ingest', onProgress);
        await this.storage.putRounds(records);
        this.lanes.add(records.flatMap((record) => record.units));
        this.setHistory([...this.history, ...records.map((record) => record.round)]);
        onProgress?.({ status: 'done', task: 'ingest' });
        return records.map((record) => record.round);
      });
    });
  }

  async retrieve(query: Query | string, options: RetrievalOptions = {}): Promise<RetrievalResult> {
    this.assertOpen();
    const normalizedQuery = typeof query === 'string' ? { text: query } : query;
    const text = normalizedQuery?.text?.trim() ?? '';
    const image = normalizedQuery?.image;
    if (!text && !image) throw new VmemError('EMPTY_QUERY', 'The query has neither text nor an image; type a question or attach a picture.');
    if (text.length > this.maxTextChars) {
      throw new VmemError('TEXT_TOO_LONG', `The question is ${text.length} characters; the limit is ${this.maxTextChars}. Shorten it.`);
    }
    const settings = normalizeRetrievalOptions(options, this.defaults);
    const decided = route(text, image !== undefined);
    const encoded = await this.encodeQuery(text, image, decided, settings.llmAnchors && settings.routing);
    return runRetrieval(this.view(), encoded, settings);
  }

  answer(query: Query | string, options: AnswerOptions = {}): Promise<AnswerResult> {
    this.assertOpen();
    return answerWithMemory(
      { llm: this.llm, retrieve: (q, o) => this.retrieve(q, o), getImage: (id) => this.storage.getImage(id) },
      typeof query === 'string' ? { text: query } : query,
      options,
    );
  }

  async search(request: SignalSearch): Promise<UnitHit[]> {
    this.assertOpen();
    const limit = request.limit === undefined ? 20 : request.limit;
    const accept = request.roundIds ? (roundId: string) => request.roundIds!.has(roundId) : undefined;
    if (request.signal === 'bm25') return this.lanes.bm25(request.text ?? '', limit, accept);
    if (request.signal === 'image') {
      if (!request.image) throw new VmemError('EMPTY_QUERY', 'An image search needs a query image.');
      const vector = await this.encodeQueryImage(request.image);
      return vector ? this.lanes.image(vector, limit, accept) : [];
    }
    if (!request.text?.trim()) throw new VmemError('EMPTY_QUERY', `A ${request.signal} search needs query text.`);
    const [vector] = await this.textEncoder.embed([request.text]);
    return this.lanes.dense(normalize(vector!), limit, accept, request.signal === 'caption-dense');
  }

  setCaption(imageId: string, caption: string): Promise<StoredRound> {
    this.assertOpen();
    return this.enqueueWrite(async () => {
      const text = typeof caption === 'string' ? caption.trim() : '';
      if (!text) throw new VmemError('INVALID_INPUT', `The caption for image "${imageId}" is empty; pass a description.`);
      if (text.length > this.maxTextChars) {
        throw new VmemError('TEXT_TOO_LONG', `The caption for image "${imageId}" is ${text.length} characters; the limit is ${this.maxTextChars}.`);
      }
      const round = this.history.find((candidate) => [...candidate.user.images, ...candidate.assistant.images].some((image) => image.id === imageId));
      if (!round) throw new VmemError('UNKNOWN_ROUND', `No image "${imageId}" in this memory; it may have been forgotten.`);
      const updated = withCaption(round, imageId, text);
      // Only text changes: re-encode the text units, keep the image vectors as stored.
      const imageUnits = this.lanes
        .unitIdsOf(round.id)
        .map((unitId) => this.lanes.storedUnit(unitId))
        .filter((unit): unit is StoredUnit => unit !== undefined && unit.lane === 'image');
      const textUnits = (await this.encodeUnits([{ round: updated, images: [] }])).filter((unit) => unit.lane === 'text');
      const images = await this.storedImagesOf(updated);
      await this.storage.putRounds([{ round: updated, units: [...textUnits, ...imageUnits], images }]);
      this.lanes.removeRound(round.id);
      this.lanes.add([...textUnits, ...imageUnits]);
      this.setHistory(this.history.map((candidate) => (candidate.id === round.id ? updated : candidate)));
      return updated;
    });
  }

  get(roundId: string): StoredRound | undefined {
    const at = this.indexOf.get(roundId);
    return at === undefined ? undefined : this.history[at];
  }

  rounds(): readonly StoredRound[] {
    return this.history;
  }

  getImage(imageId: string): Promise<StoredImage | undefined> {
    return this.storage.getImage(imageId);
  }

  forget(roundId: string): Promise<void> {
    this.assertOpen();
    return this.enqueueWrite(async () => {
      if (!this.indexOf.has(roundId)) {
        throw new VmemError('UNKNOWN_ROUND', `No round "${roundId}" in this memory; it may have been forgotten already.`);
      }
      await this.storage.deleteRound(roundId);
      this.lanes.removeRound(roundId);
      this.setHistory(this.history.filter((round) => round.id !== roundId));
    });
  }

  clear(): Promise<void> {
    this.assertOpen();
    return this.enqueueWrite(async () => {
      await this.storage.clear();
      await this.storage.writeManifest(newManifest(this.encoders));
      this.lanes.clear();
      this.setHistory([]);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Let writes already queued finish before the storage goes away.
    await this.writes.run(async () => undefined);
    await this.storage.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new VmemError('CLOSED', 'This memory is closed; open it again with createMemory.');
  }

  private enqueueWrite<T>(task: () => Promise<T>): Promise<T> {
    return this.writes.run(task);
  }

  private async storedImagesOf(round: StoredRound): Promise<StoredImage[]> {
    const refs = [...round.user.images, ...round.assistant.images].filter((ref) => ref.hasBytes);
    const images = await Promise.all(refs.map((ref) => this.storage.getImage(ref.id)));
    return images.filter((image): image is StoredImage => image !== undefined);
  }

  private nextSeq(): number {
    const last = this.history[this.history.length - 1];
    return last ? last.seq + 1 : 0;
  }

  private setHistory(rounds: StoredRound[]): void {
    this.history = rounds;
    this.indexOf = new Map(rounds.map((round, index) => [round.id, index]));
    this.imageIds = new Set(rounds.flatMap((round) => [...round.user.images, ...round.assistant.images].map((image) => image.id)));
    this.nearImagesCache = undefined;
  }

  private view(): IndexView {
    const lanes = this.lanes;
    return {
      history: this.history,
      indexOf: this.indexOf,
      unit: (unitId) => lanes.unit(unitId),
      roundsNearImages: () => {
        this.nearImagesCache ??= roundsNearImages(
          this.history.map((round) => ({ id: round.id, sessionId: round.sessionId, hasImage: round.user.images.length + round.assistant.images.length > 0 })),
          1,
        );
        return this.nearImagesCache;
      },
      bm25: (text, limit, accept) => lanes.bm25(text, limit, accept),
      dense: (vector, limit, accept, captionsOnly) => lanes.dense(vector, limit, accept, captionsOnly),
      image: (vector, limit, accept) => lanes.image(vector, limit, accept),
      textVector: (unitId) => lanes.textVector(unitId),
    };
  }

  /**
   * Encodes rounds in slices of 32, so progress moves and memory stays bounded; nothing is stored here,
   * so a failure leaves the memory as it was.
   */
  private async encodeRecords(
    items: readonly { round: StoredRound; images: readonly StoredImage[] }[],
    task: 'ingest' | 'reindex',
    onProgress: MemoryOptions['onProgress'],
  ): Promise<RoundRecord[]> {
    onProgress?.({ status: 'initiate', task });
    const records: RoundRecord[] = [];
    const slice = 32;
    for (let start = 0; start < items.length; start += slice) {
      const part = items.slice(start, start + slice);
      const unitsOf = groupBy(await this.encodeUnits(part), (unit) => unit.roundId);
      for (const item of part) records.push({ round: item.round, units: unitsOf.get(item.round.id) ?? [], images: item.images });
      onProgress?.({ status: 'progress', task, loaded: Math.min(start + slice, items.length), total: items.length, unit: 'rounds' });
    }
    return records;
  }

  /** Embeds every unit of the given rounds in one text batch and one image batch. */
  private async encodeUnits(items: readonly { round: StoredRound; images: readonly StoredImage[] }[]): Promise<StoredUnit[]> {
    const specs: UnitSpec[] = items.flatMap((item) => unitSpecsOf(item.round));
    const bytesOf = new Map(items.flatMap((item) => item.images.map((image) => [image.id, image] as const)));
    const captionOf = new Map(items.flatMap((item) => [...item.round.user.images, ...item.round.assistant.images].map((ref) => [ref.id, ref.caption] as const)));

    const textSpecs = specs.filter((spec) => spec.kind !== 'image');
    const imageSpecs = this.imageEncoder
      ? specs.filter((spec) => spec.kind === 'image' && (bytesOf.has(spec.imageId!) || (this.imageEncoder!.captionOnly && captionOf.get(spec.imageId!))))
      : [];
    const [textVectors, imageVectors] = await Promise.all([
      textSpecs.length ? this.textEncoder.embed(textSpecs.map((spec) => spec.text!)) : Promise.resolve([]),
      imageSpecs.length
        ? this.imageEncoder!.embed(
            imageSpecs.map((spec): ImagePayload => {
              const stored = bytesOf.get(spec.imageId!);
              const caption = captionOf.get(spec.imageId!);
              return { ...(stored ? { bytes: stored.bytes, mimeType: stored.mimeType } : {}), ...(caption ? { caption } : {}) };
            }),
          )
        : Promise.resolve([]),
    ]);
    const toUnit = (spec: UnitSpec, vector: Float32Array | undefined, lane: 'text' | 'image'): StoredUnit => {
      if (!vector) throw new VmemError('MODEL_LOAD_FAILED', `The ${lane} encoder returned fewer vectors than inputs.`);
      const { id, roundId, kind, role, text, imageId } = spec;
      return { id, roundId, lane, kind, role, ...(text !== undefined ? { text } : {}), ...(imageId ? { imageId } : {}), vector: normalize(vector) };
    };
    return [
      ...textSpecs.map((spec, index) => toUnit(spec, textVectors[index], 'text')),
      ...imageSpecs.map((spec, index) => toUnit(spec, imageVectors[index], 'image')),
    ];
  }

  private async encodeQuery(text: string, image: Query['image'], decided: EncodedQuery['route'], useLlm: boolean): Promise<EncodedQuery> {
    const llmReady = useLlm && this.llm.available;
    const warnings: string[] = [];
    // An anchor is an optional improvement: if the LLM fails, retrieval goes on with the raw query and says so.
    const anchor = async <T>(what: string, fallback: T, call: () => Promise<T>): Promise<T> => {
      try {
        return await call();
      } catch (error) {
        if (!isLlmError(error)) throw error;
        warnings.push(`${what} skipped: ${error.message}`);
        return fallback;
      }
    };
    const wantsCaption = llmReady && decided.target === 'image' && !image && !decided.counting && text !== '';
    const wantsKeywords = llmReady && this.llm.vision && image?.bytes !== undefined && decided.target === 'text';
    const [captionAnchor, keywords, imageVector] = await Promise.all([
      wantsCaption ? anchor('Hypothetical caption', undefined, () => this.hypotheticalCaption(text)) : undefined,
      wantsKeywords ? anchor('Image keywords', [] as string[], () => this.imageKeywords(image!, text)) : [],
      image ? this.encodeQueryImage(image) : undefined,
    ]);
    const searchText = [text, ...keywords].join(' ').trim();
    const toEmbed = [searchText, captionAnchor].filter((value): value is string => Boolean(value));
    const vectors = toEmbed.length ? await this.textEncoder.embed(toEmbed) : [];
    return {
      route: decided,
      text: searchText,
      ...(searchText ? { textVector: normalize(vectors[0]!) } : {}),
      ...(imageVector ? { imageVector } : {}),
      ...(captionAnchor ? { captionAnchor, captionAnchorVector: normalize(vectors[searchText ? 1 : 0]!) } : {}),
      ...(keywords.length ? { imageKeywords: keywords } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  }

  private async encodeQueryImage(image: NonNullable<Query['image']>): Promise<Float32Array | undefined> {
    if (!this.imageEncoder) return undefined;
    if (!image.bytes && !(this.imageEncoder.captionOnly && image.caption)) return undefined;
    if (image.mimeType !== undefined && !image.mimeType.startsWith('image/')) {
      throw new VmemError('UNSUPPORTED_FILE', `The query attachment has type "${image.mimeType}"; attach an image (JPEG, PNG, WebP, GIF, BMP).`);
    }
    const [vector] = await this.imageEncoder.embed([
      { ...(image.bytes ? { bytes: image.bytes } : {}), ...(image.mimeType ? { mimeType: image.mimeType } : {}), ...(image.caption ? { caption: image.caption } : {}) },
    ]);
    return normalize(vector!);
  }

  private async hypotheticalCaption(question: string): Promise<string | undefined> {
    const reply = await this.llm.complete({ messages: captionAnchorPrompt(question), temperature: 0 });
    return cleanCaption(reply) || undefined;
  }

  private async imageKeywords(image: NonNullable<Query['image']>, question: string): Promise<string[]> {
    const url = bytesToDataUrl(image.bytes!, image.mimeType ?? 'image/jpeg');
    const reply = await this.llm.complete({ messages: imageKeywordsPrompt({ url, detail: 'low' }, question), temperature: 0 });
    return parseKeywords(reply);
  }
}

/** Runs a task, and reports `failed` before rethrowing when it throws, so progress always ends. */
async function reportFailure<T>(task: ProgressTask, onProgress: ProgressCallback | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    onProgress?.({ status: 'failed', task, ...(errorCode(error) ? { code: errorCode(error) } : {}), message: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key) ?? [];
    group.push(item);
    groups.set(key, group);
  }
  return groups;
}

/** The round with one image's caption set, and the caption folded into its turn's text. */
function withCaption(round: StoredRound, imageId: string, caption: string): StoredRound {
  const update = (turn: StoredRound['user']): StoredRound['user'] => {
    const image = turn.images.find((candidate) => candidate.id === imageId);
    if (!image) return turn;
    const folded = `[Image: ${caption}]`;
    const text = image.caption ? turn.text.replace(`[Image: ${image.caption}]`, folded) : [turn.text, folded].filter(Boolean).join(' ');
    return { text, images: turn.images.map((candidate) => (candidate.id === imageId ? { ...candidate, caption } : candidate)) };
  };
  return { ...round, user: update(round.user), assistant: update(round.assistant) };
}
