/**
 * vmem: a multimodal long-term memory for chat agents that runs inside a web page.
 * This entry is browser-safe; Node-only helpers live in `vmem/node`.
 */
export { createMemory } from './memory/memory.js';
export { route } from './core/route.js';
export { DEFAULT_MAX_TEXT_CHARS } from './options.js';
export { createInMemoryStorage } from './storage/memory-storage.js';
export { VmemError, LlmError, isVmemError, isLlmError, errorCode } from './errors.js';
export { createNoneProvider } from './llm/none.js';
export { createOpenAiProvider } from './llm/openai.js';
export { createWebLlmProvider } from './llm/web-llm.js';
export { browserImageResizer } from './images/browser-resize.js';
export {
  createUseLiteTextEncoder,
  createMobileNetImageEncoder,
  createCaptionProxyImageEncoder,
  createBrowserImageDecoder,
  createEmbeddedEncoders,
  USE_LITE_DIMENSION,
  MOBILENET_DIMENSION,
  MODEL_FILES,
} from './encoders/index.js';
export { parseWordVectors, encodeWordVectors } from './encoders/word-vectors.js';
export { clipToRounds } from './video/clip.js';
export { formatClock } from './video/rounds.js';
export { openVideoFrames } from './video/browser-frames.js';
export { DEFAULT_SEGMENT_SECONDS, DEFAULT_FRAMES_PER_SEGMENT } from './video/select.js';
export { describeImages } from './enrich/describe.js';
export {
  createImageDescriber,
  createCenterNetDetector,
  createTesseractTextReader,
  derivedText,
  labelledDescription,
  descriptionParts,
  descriptionKeywords,
} from './describe/index.js';
export { MEMORY_TOOLS, TOOL_SPECS, READ_TOOLS, DEFAULT_TOOLS, toolDefinitions } from './tools/definitions.js';
export { runTool, toolError } from './tools/run-tool.js';
export { imageFromDataUrl } from './tools/image-source.js';
export { runAgent } from './tools/agent.js';

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
export type { ImageResizer, ResizedImage } from './images/types.js';
export type { ClipOptions, ClipResult, FrameSource } from './video/clip.js';
export type { VideoFrames, VideoFramesOptions } from './video/browser-frames.js';
export type { DescribeOptions, DescribeResult, DescribeState, DescribeTarget } from './enrich/describe.js';
export type {
  Box,
  CenterNetDetectorOptions,
  ColourName,
  DescribeTimings,
  DescriptionField,
  DescriptionPart,
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
export type { ToolDefinition, MemoryToolName } from './tools/definitions.js';
export type { RunToolOptions, ToolImage, ToolMemory, ToolResult, ToolRound } from './tools/run-tool.js';
export type { ImageSourceResolver } from './tools/image-source.js';
export type { AgentOptions, AgentResult, AgentStep, AgentToolCall } from './tools/agent.js';
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
export type { WebLlmProviderOptions } from './llm/web-llm.js';
