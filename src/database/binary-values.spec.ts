import { binaryRealArray } from './binary-values';

describe('binaryRealArray', () => {
  it('lays vectors one after another in PostgreSQL binary array form, each element 4 bytes of float', () => {
    const bytes = binaryRealArray([Float32Array.of(0.5, -2), [1.25]]);
    expect(bytes).toHaveLength(20 + 3 * 8);
    // one dimension, no nulls, element type real (700), three elements from index 1
    expect([0, 4, 8, 12, 16].map((at) => bytes.readInt32BE(at))).toEqual([1, 0, 700, 3, 1]);
    const elements = [0, 1, 2].map((i) => [bytes.readInt32BE(20 + 8 * i), bytes.readFloatBE(24 + 8 * i)]);
    expect(elements).toEqual([[4, 0.5], [4, -2], [4, 1.25]]);
  });

  it('makes an empty array of no vectors', () => {
    const bytes = binaryRealArray([]);
    expect([0, 4, 8, 12, 16].map((at) => bytes.readInt32BE(at))).toEqual([1, 0, 700, 0, 1]);
  });
});
