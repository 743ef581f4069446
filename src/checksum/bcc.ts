/**
 * IEC 62056-21 §6.3 (data message, block check character): the BCC is the longitudinal parity, the
 * XOR of all bytes after the first STX (0x02) up to and including the ETX (0x03) ending the block.
 */

/** Below this many bytes a plain byte loop is cheaper than setting up a word view. */
const WORD_LOOP_THRESHOLD = 64;

/** XOR of `bytes[start..end)`; callers pass the range after STX through ETX inclusive. */
export function blockCheck(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let bcc = 0;
  let i = start;
  if (end - i >= WORD_LOOP_THRESHOLD) {
    while (((bytes.byteOffset + i) & 3) !== 0) bcc ^= bytes[i++]!;
    const words = (end - i) >>> 2;
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    let xor = 0;
    for (let w = 0; w < words; w++) xor ^= view[w]!;
    // XOR of the four byte lanes = XOR of all bytes in the words, whatever the endianness
    bcc ^= xor ^ (xor >>> 8) ^ (xor >>> 16) ^ (xor >>> 24);
    i += words * 4;
  }
  while (i < end) bcc ^= bytes[i++]!;
  return bcc & 0xff;
}
