/**
 * vmem: a multimodal long-term memory for chat agents that runs inside a web page. This entry holds
 * the memory and its verbs, the LLM providers, and the encoder and describer factories; it is
 * browser-safe. Elsewhere: `vmem/browser` (IndexedDB and the encoder worker), `vmem/node`, `vmem/hub`,
 * `vmem/web-llm`, `vmem/tools` (the memory as LLM tools), `vmem/video`, and the adapters.
 */
export { createMemory } from './memory/memory.js';
export { createInMemoryStorage } from './storage/memory-storage.js';
export { VmemError, LlmError, isVmemError, isLlmError, errorCode } from './errors.js';
export { createNoneProvider } from './llm/none.js';
export { createOpenAiProvider } from './llm/openai.js';
export { browserImageResizer } from './images/browser-resize.js';
export {
  createUseLiteTextEncoder,
  createMobileNetImageEncoder,
  createCaptionProxyImageEncoder,
  createBrowserImageDecoder,
  createEmbeddedEncoders,
} from './encoders/index.js';
export { parseWordVectors } from './encoders/word-vectors.js';
export { describeImages } from './enrich/describe.js';
export { createImageDescriber, createCenterNetDetector, createTesseractTextReader } from './describe/index.js';

export type {
  Memory,
  AddOptions,
  AnswerOptions,
  AnswerResult,
  AttachSkipReason,
  DescribePendingOptions,
  RoundPatch,
  SetCaptionOptions,
  SignalSearch,
  SkippedImage,
  TurnPatch,
  UnitHit,
} from './memory/types.js';
export type { DescribeRun } from './memory/derived.js';
export type { SyncHandle, SyncOptions, SyncState } from './sync/types.js';
export type { ImageResizer, ResizedImage } from './images/types.js';
export type { DescribeOptions, DescribeResult, DescribeState, DescribeTarget } from './enrich/describe.js';
export type {
  Box,
  CenterNetDetectorOptions,
  ColourName,
  DescribeTimings,
  Detection,
  ImageDescriber,
  ImageDescriberOptions,
  ImageDescription,
  ObjectDetector,
  ObjectGroup,
  ReadOptions,
  ReadText,
  TesseractTextReaderOptions,
  TextReader,
} from './describe/index.js';
export type { MemoryOptions, RetrievalOptions, RetrievalFilter, TimeInput } from './options.js';
export type {
  Block,
  DerivedDescription,
  EncoderIds,
  ImageInput,
  ImageRef,
  Lane,
  Query,
  RetrievalCase,
  RetrievalResult,
  ReturnedUnit,
  Role,
  RoundInput,
  Route,
  Signal,
  StoredRound,
  StoredTurn,
  StoredUnit,
  TraceEntry,
  TraceHit,
  TurnInput,
  UnitKind,
  WordVectors,
} from './types.js';
export type { TextEmbedder, ImageEmbedder, ImagePayload, ImageDecoder, RgbaImage } from './encoders/types.js';
export type { VmemProgress, ProgressCallback, ProgressTask, ProgressUnit } from './progress.js';
export type {
  EmbeddedEncoders,
  EmbeddedEncodersOptions,
  EmbeddedImageMode,
  LoadableImageEmbedder,
  LoadableTextEmbedder,
  MobileNetImageEncoderOptions,
  ModelPrecision,
  OnnxModelSource,
  OrtRuntime,
  OrtSessionOptions,
  UseLiteTextEncoderOptions,
} from './encoders/index.js';
export type { LlmProvider, LlmMessage, LlmRequest, LlmImage, LlmTool, LlmToolCall, LlmToolMessage, LlmToolRequest, LlmToolReply } from './llm/types.js';
export type { MemoryStorage, Manifest, RoundRecord, StoredImage } from './storage/types.js';
export type { VmemErrorCode } from './errors.js';
export type { OpenAiProviderOptions } from './llm/openai.js';
