/**
 * Splits `bytes` into consecutive chunks ending at the given offsets (sorted, duplicates dropped,
 * out-of-range offsets clamped to the length) and at the end: how a transport might deliver them.
 * The chunks are views of `bytes`, not copies.
 */
export function splitAt(bytes: Uint8Array, offsets: readonly number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => Math.max(0, Math.min(o, bytes.length))))].sort(
    (a, b) => a - b,
  );
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(Buffer.from(bytes.buffer, bytes.byteOffset + from, point - from));
    from = point;
  }
  return chunks;
}

/** splitAt with arbitrary cut points (fast-check naturals), each taken modulo length + 1. */
export function splitAtCuts(bytes: Uint8Array, cuts: readonly number[]): Buffer[] {
  return splitAt(
    bytes,
    cuts.map((cut) => cut % (bytes.length + 1)),
  );
}
