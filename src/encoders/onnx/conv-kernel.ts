/**
 * TensorFlow keeps convolution kernels as [height, width, in, out] (depthwise: [height, width, in,
 * multiplier]); ONNX `Conv` wants [out, in / group, height, width]. Shared by both converters.
 */

/** A channels-last kernel reordered for ONNX `Conv`, with the `group` it needs. */
export interface OnnxConvKernel {
  readonly dims: readonly [number, number, number, number];
  readonly data: Float32Array;
  readonly group: number;
}

/** Reorders a TensorFlow kernel of `shape` for ONNX; `depthwise` kernels become one group per input channel. */
export function onnxConvKernel(shape: readonly number[], data: ArrayLike<number>, depthwise: boolean): OnnxConvKernel {
  const [height, width, channelsIn, perChannel] = shape as [number, number, number, number];
  const out = new Float32Array(data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < channelsIn; c++) {
        for (let k = 0; k < perChannel; k++) {
          const from = ((y * width + x) * channelsIn + c) * perChannel + k;
          const to = depthwise ? ((c * perChannel + k) * height + y) * width + x : ((k * channelsIn + c) * height + y) * width + x;
          out[to] = data[from]!;
        }
      }
    }
  }
  return depthwise
    ? { dims: [channelsIn * perChannel, 1, height, width], data: out, group: channelsIn }
    : { dims: [perChannel, channelsIn, height, width], data: out, group: 1 };
}
