import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import type { OrtRuntime } from '../ort-runtime.js';
import { splitEmbeddingTablesIntoBytePlanes } from './byte-planes.js';
import { encodeOnnxModel, OnnxType } from './proto.js';
import type { OnnxGraph, OnnxNode } from './proto.js';

ortWeb.env.wasm.numThreads = 1;
const runtimes: Record<string, OrtRuntime> = { 'onnxruntime-node': ortNode, 'onnxruntime-web (WASM)': ortWeb };

const ROWS = 4096;
const WIDTH = 256;

/** Normal float32 values over the formula's whole range: both signs, from 2^-125 up to near the largest float. */
function wideTable(): Float32Array {
  const values = new Float32Array(ROWS * WIDTH);
  const bits = new Uint32Array(values.buffer);
  let state = 12345;
  for (let i = 0; i < bits.length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const exponent = 2 + (state % 253);
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    bits[i] = ((state & 1) << 31) | (exponent << 23) | (state >>> 9);
  }
  return values;
}

/** `rows` = Gather(table, ids), and optionally another reader of the table. */
function lookupGraph(table: Float32Array, extraReader?: OnnxNode): OnnxGraph {
  return {
    name: 'lookup',
    nodes: [{ op: 'Gather', inputs: ['table', 'ids'], outputs: ['rows'], attributes: { axis: { int: 0 } } }, ...(extraReader ? [extraReader] : [])],
    initializers: [{ name: 'table', type: OnnxType.float, dims: [ROWS, WIDTH], data: table }],
    inputs: [{ name: 'ids', type: OnnxType.int32, dims: ['n'] }],
    outputs: [{ name: 'rows', type: OnnxType.float, dims: ['n', WIDTH] }, ...(extraReader ? [{ name: extraReader.outputs[0]!, type: OnnxType.float, dims: [ROWS, WIDTH] }] : [])],
  };
}

async function lookUp(runtime: OrtRuntime, graph: OnnxGraph, ids: Int32Array): Promise<Uint32Array> {
  const session = await runtime.InferenceSession.create(encodeOnnxModel(graph, 'test'));
  try {
    const { rows } = await session.run({ ids: new runtime.Tensor('int32', ids, [ids.length]) });
    const data = rows!.data as Float32Array;
    return new Uint32Array(data.buffer, data.byteOffset, data.length).slice();
  } finally {
    await session.release();
  }
}

describe('byte planes of an embedding table', () => {
  const table = wideTable();
  const ids = Int32Array.from({ length: ROWS }, (_, i) => (i * 2654435761) % ROWS);

  for (const [name, runtime] of Object.entries(runtimes)) {
    it(`gives every gathered value bit for bit (${name})`, async () => {
      const planed = splitEmbeddingTablesIntoBytePlanes(lookupGraph(table));
      expect(planed.initializers.map((tensor) => tensor.name)).not.toContain('table');
      const expected = new Uint32Array(table.buffer);
      const got = await lookUp(runtime, planed, ids);
      let differing = 0;
      for (let row = 0; row < ids.length; row++) {
        for (let column = 0; column < WIDTH; column++) if (got[row * WIDTH + column] !== expected[ids[row]! * WIDTH + column]) differing++;
      }
      expect(differing).toBe(0);
    });
  }

  it('leaves a table with a zero, or one read by anything but a Gather, as it is', () => {
    const withZero = wideTable();
    withZero[77] = 0;
    const zeroGraph = lookupGraph(withZero);
    expect(splitEmbeddingTablesIntoBytePlanes(zeroGraph)).toBe(zeroGraph);
    const readTwice = lookupGraph(table, { op: 'Neg', inputs: ['table'], outputs: ['negated'] });
    expect(splitEmbeddingTablesIntoBytePlanes(readTwice)).toBe(readTwice);
  });
});
