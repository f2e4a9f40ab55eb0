/**
 * Test-only: writes tiny ONNX models and Hugging Face model folders by hand (a minimal protobuf writer),
 * so the transformers.js encoders can be exercised offline without any downloaded weights.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// --- protobuf wire format: varints and length-delimited fields are all ONNX needs here -------------

type Field = Uint8Array;

function varint(value: number): number[] {
  if (!Number.isInteger(value) || value < 0) throw new Error(`varint needs a non-negative integer, got ${value}`);
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

const concat = (parts: readonly Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
};

/** An integer field (wire type 0). */
const int = (field: number, value: number): Field => new Uint8Array([...varint(field * 8), ...varint(value)]);
/** A bytes/string/sub-message field (wire type 2). */
const bytes = (field: number, payload: Uint8Array): Field => concat([new Uint8Array([...varint(field * 8 + 2), ...varint(payload.length)]), payload]);
const text = (field: number, value: string): Field => bytes(field, new TextEncoder().encode(value));
const message = (field: number, ...fields: Field[]): Field => bytes(field, concat(fields));

// --- ONNX messages (field numbers from onnx.proto) -------------------------------------------------

const FLOAT = 1;
const INT64 = 7;

/** A dimension: a number, or a symbolic name such as 'batch'. */
type Dim = number | string;

function valueInfo(name: string, elemType: number, dims: readonly Dim[]): Field {
  const shape = dims.map((d) => message(1, typeof d === 'number' ? int(1, d) : text(2, d)));
  // ValueInfoProto body: name, type { tensor_type { elem_type, shape } }.
  return concat([text(1, name), message(2, message(1, int(1, elemType), message(2, ...shape)))]);
}

function floatTensor(name: string, dims: readonly number[], values: Float32Array): Field {
  return concat([...dims.map((d) => int(1, d)), int(2, FLOAT), text(8, name), bytes(9, new Uint8Array(values.buffer, values.byteOffset, values.byteLength))]);
}

function int64Tensor(name: string, dims: readonly number[], values: readonly number[]): Field {
  const raw = new BigInt64Array(values.map((v) => BigInt(v)));
  return concat([...dims.map((d) => int(1, d)), int(2, INT64), text(8, name), bytes(9, new Uint8Array(raw.buffer))]);
}

interface NodeSpec {
  readonly op: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** Integer attributes, e.g. `{ to: 1 }` for Cast. */
  readonly ints?: Readonly<Record<string, number>>;
  /** Integer-list attributes, e.g. `{ axes: [2, 3] }` for ReduceMean (opset 13). */
  readonly intLists?: Readonly<Record<string, readonly number[]>>;
}

function node(spec: NodeSpec, index: number): Field {
  const attributes = [
    ...Object.entries(spec.ints ?? {}).map(([name, value]) => message(5, text(1, name), int(20, 2 /* INT */), int(3, value))),
    ...Object.entries(spec.intLists ?? {}).map(([name, values]) => message(5, text(1, name), int(20, 7 /* INTS */), ...values.map((v) => int(8, v)))),
  ];
  return message(1, ...spec.inputs.map((i) => text(1, i)), ...spec.outputs.map((o) => text(2, o)), text(3, `${spec.op}_${index}`), text(4, spec.op), ...attributes);
}

interface GraphSpec {
  readonly nodes: readonly NodeSpec[];
  readonly initializers: readonly Field[];
  readonly inputs: readonly Field[];
  readonly outputs: readonly Field[];
}

function modelBytes(graph: GraphSpec): Uint8Array {
  const graphField = message(
    7,
    ...graph.nodes.map(node),
    text(2, 'tiny'),
    ...graph.initializers.map((t) => bytes(5, t)),
    ...graph.inputs.map((v) => bytes(11, v)),
    ...graph.outputs.map((v) => bytes(12, v)),
  );
  return concat([int(1, 8) /* ir_version */, text(2, 'vmem-tests'), graphField, message(8, text(1, ''), int(2, 13)) /* opset 13 */]);
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
  const seqDims: Dim[] = ['batch', 'sequence'];
  return modelBytes({
    nodes: [
      { op: 'Gather', inputs: ['word_embeddings', 'input_ids'], outputs: ['words'] },
      { op: 'Gather', inputs: ['type_embeddings', 'token_type_ids'], outputs: ['types'] },
      { op: 'Add', inputs: ['words', 'types'], outputs: ['embedded'] },
      { op: 'Cast', inputs: ['attention_mask'], outputs: ['mask_float'], ints: { to: FLOAT } },
      { op: 'Unsqueeze', inputs: ['mask_float', 'last_axis'], outputs: ['mask_3d'] },
      { op: 'Mul', inputs: ['embedded', 'mask_3d'], outputs: ['last_hidden_state'] },
    ],
    initializers: [floatTensor('word_embeddings', [vocab, hidden], seededFloats(vocab * hidden, 7)), floatTensor('type_embeddings', [2, hidden], seededFloats(2 * hidden, 11)), int64Tensor('last_axis', [1], [2])],
    inputs: [valueInfo('input_ids', INT64, seqDims), valueInfo('attention_mask', INT64, seqDims), valueInfo('token_type_ids', INT64, seqDims)],
    outputs: [valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', hidden])],
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
      { op: 'ReduceMean', inputs: ['pixel_values'], outputs: ['channel_mean'], intLists: { axes: [2, 3] }, ints: { keepdims: 0 } },
      { op: 'Mul', inputs: ['pixel_values', 'pixel_values'], outputs: ['squared'] },
      { op: 'ReduceMean', inputs: ['squared'], outputs: ['channel_power'], intLists: { axes: [2, 3] }, ints: { keepdims: 0 } },
      { op: 'Concat', inputs: ['channel_mean', 'channel_power'], outputs: ['stats'], ints: { axis: 1 } },
      { op: 'MatMul', inputs: ['stats', 'projection'], outputs: ['pooler_output'] },
    ],
    initializers: [floatTensor('projection', [6, hidden], seededFloats(6 * hidden, 5))],
    inputs: [valueInfo('pixel_values', FLOAT, ['batch', 3, 'height', 'width'])],
    outputs: [valueInfo('pooler_output', FLOAT, ['batch', hidden])],
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
