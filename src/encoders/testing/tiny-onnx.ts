/**
 * Test-only: writes tiny ONNX models (with the converters' protobuf writer) and Hugging Face model
 * folders by hand, so the transformers.js encoders can be exercised offline without any downloaded
 * weights.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeOnnxModel, OnnxType } from '../onnx/proto.js';
import type { OnnxGraph, OnnxTensor } from '../onnx/proto.js';

const FLOAT = OnnxType.float;
const INT64 = OnnxType.int64;

function floatTensor(name: string, dims: readonly number[], values: Float32Array): OnnxTensor {
  return { name, type: FLOAT, dims, data: values };
}

function int64Tensor(name: string, dims: readonly number[], values: readonly number[]): OnnxTensor {
  return { name, type: INT64, dims, data: BigInt64Array.from(values, (v) => BigInt(v)) };
}

function modelBytes(graph: Omit<OnnxGraph, 'name'>): Uint8Array {
  return encodeOnnxModel({ name: 'tiny', ...graph }, 'vmem-tests');
}

/** Deterministic pseudo-random floats in [-1, 1) (a fixed LCG, so every run writes the same model). */
function seededFloats(count: number, seed: number): Float32Array {
  const out = new Float32Array(count);
  let state = seed >>> 0;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state / 2 ** 31 - 1;
  }
  return out;
}

// --- a BERT-shaped text model ----------------------------------------------------------------------

/** Words of the tiny WordPiece vocabulary (after the five special tokens). */
const TINY_WORDS = ['the', 'a', 'cat', 'dog', 'sat', 'on', 'mat', 'rug', 'stock', 'market', 'fell', 'today', 'red', 'bike', '.', ',', '##s'];

/**
 * ONNX graph with BERT's interface: inputs `input_ids`, `attention_mask`, `token_type_ids` (int64
 * [batch, sequence]) → `last_hidden_state` (float [batch, sequence, hidden]) = (word + type embedding) × mask.
 */
export function tinyBertOnnx(hidden: number): Uint8Array {
  const vocab = 5 + TINY_WORDS.length;
  const seqDims = ['batch', 'sequence'];
  return modelBytes({
    nodes: [
      { op: 'Gather', inputs: ['word_embeddings', 'input_ids'], outputs: ['words'] },
      { op: 'Gather', inputs: ['type_embeddings', 'token_type_ids'], outputs: ['types'] },
      { op: 'Add', inputs: ['words', 'types'], outputs: ['embedded'] },
      { op: 'Cast', inputs: ['attention_mask'], outputs: ['mask_float'], attributes: { to: { int: FLOAT } } },
      { op: 'Unsqueeze', inputs: ['mask_float', 'last_axis'], outputs: ['mask_3d'] },
      { op: 'Mul', inputs: ['embedded', 'mask_3d'], outputs: ['last_hidden_state'] },
    ],
    initializers: [floatTensor('word_embeddings', [vocab, hidden], seededFloats(vocab * hidden, 7)), floatTensor('type_embeddings', [2, hidden], seededFloats(2 * hidden, 11)), int64Tensor('last_axis', [1], [2])],
    inputs: [
      { name: 'input_ids', type: INT64, dims: seqDims },
      { name: 'attention_mask', type: INT64, dims: seqDims },
      { name: 'token_type_ids', type: INT64, dims: seqDims },
    ],
    outputs: [{ name: 'last_hidden_state', type: FLOAT, dims: ['batch', 'sequence', hidden] }],
  });
}

/** A BERT WordPiece `tokenizer.json` over the tiny vocabulary (lower-cased). */
export function tinyBertTokenizerJson(): object {
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const vocab = Object.fromEntries([...specials, ...TINY_WORDS].map((token, id) => [token, id]));
  const special = (content: string) => ({ id: vocab[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [vocab['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [vocab['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

/**
 * Writes `<root>/<name>/` as transformers.js expects a local BERT model: config.json, tokenizer.json,
 * tokenizer_config.json and onnx/model.onnx. Returns the model folder.
 */
export function writeTinyBertModel(root: string, name: string, hidden = 16): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  const vocabSize = 5 + TINY_WORDS.length;
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', architectures: ['BertModel'], hidden_size: hidden, vocab_size: vocabSize, max_position_embeddings: 64, type_vocab_size: 2 }));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tinyBertTokenizerJson()));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 64, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]' }),
  );
  writeFileSync(join(dir, 'onnx', 'model.onnx'), tinyBertOnnx(hidden));
  return dir;
}

// --- a SigLIP-shaped vision tower ------------------------------------------------------------------

/**
 * ONNX graph with a SigLIP vision tower's interface: `pixel_values` (float [batch, 3, H, W]) →
 * `pooler_output` (float [batch, hidden]) = per-channel mean and mean square, times a fixed matrix.
 */
export function tinySiglipVisionOnnx(hidden: number): Uint8Array {
  return modelBytes({
    nodes: [
      { op: 'ReduceMean', inputs: ['pixel_values'], outputs: ['channel_mean'], attributes: { axes: { ints: [2, 3] }, keepdims: { int: 0 } } },
      { op: 'Mul', inputs: ['pixel_values', 'pixel_values'], outputs: ['squared'] },
      { op: 'ReduceMean', inputs: ['squared'], outputs: ['channel_power'], attributes: { axes: { ints: [2, 3] }, keepdims: { int: 0 } } },
      { op: 'Concat', inputs: ['channel_mean', 'channel_power'], outputs: ['stats'], attributes: { axis: { int: 1 } } },
      { op: 'MatMul', inputs: ['stats', 'projection'], outputs: ['pooler_output'] },
    ],
    initializers: [floatTensor('projection', [6, hidden], seededFloats(6 * hidden, 5))],
    inputs: [{ name: 'pixel_values', type: FLOAT, dims: ['batch', 3, 'height', 'width'] }],
    outputs: [{ name: 'pooler_output', type: FLOAT, dims: ['batch', hidden] }],
  });
}

/**
 * Writes `<root>/<name>/` as a local SigLIP vision model: config.json, preprocessor_config.json
 * (resize to `size`, scale to [-1, 1]) and onnx/vision_model.onnx. Returns the model folder.
 */
export function writeTinySiglipVisionModel(root: string, name: string, hidden = 8, size = 32): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'siglip_vision_model', hidden_size: hidden, image_size: size, patch_size: 16, num_channels: 3 }));
  writeFileSync(
    join(dir, 'preprocessor_config.json'),
    JSON.stringify({
      image_processor_type: 'SiglipImageProcessor',
      do_resize: true,
      size: { height: size, width: size },
      resample: 2,
      do_rescale: true,
      rescale_factor: 1 / 255,
      do_normalize: true,
      image_mean: [0.5, 0.5, 0.5],
      image_std: [0.5, 0.5, 0.5],
    }),
  );
  writeFileSync(join(dir, 'onnx', 'vision_model.onnx'), tinySiglipVisionOnnx(hidden));
  return dir;
}
