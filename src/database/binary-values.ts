/** PostgreSQL's OID of `real` (float4), fixed in every installation. */
const FLOAT4_OID = 700;

/**
 * `vectors` one after another as a one-dimensional `real[]` in PostgreSQL's binary form: a
 * Buffer bound as a value is sent as binary by both drivers, so the server reads each float as
 * four bytes instead of parsing its text. Bind it as `${value}::real[]`.
 */
export function binaryRealArray(vectors: readonly ArrayLike<number>[]): Buffer {
  const count = vectors.reduce((sum, vector) => sum + vector.length, 0);
  // dimensions, has-nulls flag, element type, then the one dimension's length and lower bound
  const bytes = Buffer.allocUnsafe(20 + 8 * count);
  bytes.writeInt32BE(1, 0);
  bytes.writeInt32BE(0, 4);
  bytes.writeInt32BE(FLOAT4_OID, 8);
  bytes.writeInt32BE(count, 12);
  bytes.writeInt32BE(1, 16);
  let at = 20;
  for (const vector of vectors) {
    for (let i = 0; i < vector.length; i++) {
      bytes.writeInt32BE(4, at);
      bytes.writeFloatBE(vector[i], at + 4);
      at += 8;
    }
  }
  return bytes;
}
