import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import type { OrtRuntime } from '../ort-runtime.js';
import { quantizeEmbeddingTables } from './int8-tables.js';
import { encodeOnnxModel, OnnxType } from './proto.js';
import type { OnnxGraph, OnnxNode } from './proto.js';

ortWeb.env.wasm.numThreads = 1;
const runtimes: Record<string, OrtRuntime> = { 'onnxruntime-node': ortNode, 'onnxruntime-web (WASM)': ortWeb };

const ROWS = 4096;
const WIDTH = 256;

/** Rows of very different magnitudes (each row its own, from 1e-3 to 1e3), with both signs. */
function table(): Float32Array {
  const values = new Float32Array(ROWS * WIDTH);
  let state = 12345;
  for (let row = 0; row < ROWS; row++) {
    const magnitude = 10 ** (-3 + (6 * row) / ROWS);
    for (let column = 0; column < WIDTH; column++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      values[row * WIDTH + column] = magnitude * (state / 2 ** 31 - 1);
    }
  }
  values.fill(0, 5 * WIDTH, 6 * WIDTH);
  return values;
}

/** `rows` = Gather(table, ids), and optionally another reader of the table. */
function lookupGraph(values: Float32Array, extraReader?: OnnxNode): OnnxGraph {
  return {
    name: 'lookup',
    nodes: [{ op: 'Gather', inputs: ['table', 'ids'], outputs: ['rows'], attributes: { axis: { int: 0 } } }, ...(extraReader ? [extraReader] : [])],
    initializers: [{ name: 'table', type: OnnxType.float, dims: [ROWS, WIDTH], data: values }],
    inputs: [{ name: 'ids', type: OnnxType.int32, dims: ['n'] }],
    outputs: [{ name: 'rows', type: OnnxType.float, dims: ['n', WIDTH] }, ...(extraReader ? [{ name: extraReader.outputs[0]!, type: OnnxType.float, dims: [ROWS, WIDTH] }] : [])],
  };
}

async function lookUp(runtime: OrtRuntime, graph: OnnxGraph, ids: Int32Array): Promise<Float32Array> {
  const session = await runtime.InferenceSession.create(encodeOnnxModel(graph, 'test'));
  try {
    const { rows } = await session.run({ ids: new runtime.Tensor('int32', ids, [ids.length]) });
    return (rows!.data as Float32Array).slice();
  } finally {
    await session.release();
  }
}

describe('int8 embedding tables', () => {
  const values = table();
  const ids = Int32Array.from({ length: ROWS }, (_, i) => (i * 2654435761) % ROWS);

  it('stores the table as int8 with a scale per row, a quarter of its bytes', () => {
    const quantized = quantizeEmbeddingTables(lookupGraph(values));
    expect(quantized.initializers.map((tensor) => [tensor.name, tensor.type, tensor.dims])).toEqual([
      ['table/int8', OnnxType.int8, [ROWS, WIDTH]],
      ['table/int8_scale', OnnxType.float, [ROWS, 1]],
    ]);
    expect(encodeOnnxModel(quantized, 'test').length).toBeLessThan(0.26 * values.byteLength);
  });

  for (const [name, runtime] of Object.entries(runtimes)) {
    it(`gives every gathered value within half a step of its row's scale (${name})`, async () => {
      const got = await lookUp(runtime, quantizeEmbeddingTables(lookupGraph(values)), ids);
      let worst = 0;
      for (let row = 0; row < ids.length; row++) {
        const source = ids[row]! * WIDTH;
        let largest = 0;
        for (let column = 0; column < WIDTH; column++) largest = Math.max(largest, Math.abs(values[source + column]!));
        for (let column = 0; column < WIDTH; column++) {
          const error = Math.abs(got[row * WIDTH + column]! - values[source + column]!);
          if (largest === 0) expect(error).toBe(0);
          else worst = Math.max(worst, error / (largest / 127));
        }
      }
      expect(worst).toBeLessThanOrEqual(0.5 + 1e-4);
      expect(worst).toBeGreaterThan(0.4);
    });
  }

  it('leaves a table read by anything but a Gather on axis 0 as it is', () => {
    const readTwice = lookupGraph(values, { op: 'Neg', inputs: ['table'], outputs: ['negated'] });
    expect(quantizeEmbeddingTables(readTwice)).toBe(readTwice);
    const otherAxis = lookupGraph(values);
    const columns: OnnxGraph = { ...otherAxis, nodes: [{ ...otherAxis.nodes[0]!, attributes: { axis: { int: 1 } } }] };
    expect(quantizeEmbeddingTables(columns)).toBe(columns);
  });
});
