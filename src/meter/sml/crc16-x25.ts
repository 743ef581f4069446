/**
 * CRC-16 checksums of SML 1.04 (transport protocol v1 frame and the crc16 field of SML_Message).
 *
 * CRC-16/X-25: polynomial 0x1021 processed bit-reflected (0x8408), init 0xFFFF, xorout 0xFFFF;
 * check value of "123456789" is 0x906E. Used for the transport frame and for each SML message;
 * both store it low byte first (after `1b1b1b1b 1a NN`, and as the two bytes of the message's
 * crc16 Unsigned16).
 *
 * CRC-16/Kermit: same reflected polynomial, init 0x0000, xorout 0x0000 (check value 0x2189). Some
 * Holley DTZ541 firmware puts it in place of X-25, stored high byte first (SmlLib issue #8).
 */

export type SmlCrcAlgorithm = 'x25' | 'kermit';

const REFLECTED_POLY = 0x8408;

/** BYTE_STEP[b]: the register after byte b, placed in its low byte, was shifted 8 steps. */
const BYTE_STEP = new Uint16Array(256);
for (let byte = 0; byte < 256; byte++) {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ REFLECTED_POLY : crc >>> 1;
  BYTE_STEP[byte] = crc;
}

/**
 * WORD_STEP[w]: the register w shifted 16 steps. A 16-bit CRC register is consumed whole by two
 * input bytes, so one lookup of (register XOR next two bytes, first byte low) advances two bytes.
 */
const WORD_STEP = new Uint16Array(65536);
for (let word = 0; word < 65536; word++) {
  const half = (word >>> 8) ^ BYTE_STEP[word & 0xff]!;
  WORD_STEP[word] = (half >>> 8) ^ BYTE_STEP[half & 0xff]!;
}

/** Table-driven reflected CRC-16 over data[start, end). */
function crc16Reflected(data: Uint8Array, start: number, end: number, init: number): number {
  let crc = init;
  let i = start;
  for (; i + 1 < end; i += 2) crc = WORD_STEP[crc ^ data[i]! ^ (data[i + 1]! << 8)]!;
  if (i < end) crc = (crc >>> 8) ^ BYTE_STEP[(crc ^ data[i]!) & 0xff]!;
  return crc;
}

/** CRC-16/X-25 of `data[start, end)`. */
export function crc16X25(data: Uint8Array, start = 0, end = data.length): number {
  return (crc16Reflected(data, start, end, 0xffff) ^ 0xffff) & 0xffff;
}

/** CRC-16/Kermit of `data[start, end)`. */
export function crc16Kermit(data: Uint8Array, start = 0, end = data.length): number {
  return crc16Reflected(data, start, end, 0x0000);
}

/**
 * Checks the transport v1 frame checksum: the last two bytes of `frame` hold the CRC over every byte
 * before them (start escape through `1b1b1b1b 1a NN`). X-25 is stored low byte first, Kermit (the
 * Holley variant) high byte first. Returns the computed and the stored value.
 */
export function frameChecksum(
  frame: Uint8Array,
  algorithm: SmlCrcAlgorithm,
): { computed: number; stored: number } {
  const end = frame.length - 2;
  const low = frame[end] ?? 0;
  const high = frame[end + 1] ?? 0;
  if (algorithm === 'kermit') return { computed: crc16Kermit(frame, 0, end), stored: (low << 8) | high };
  return { computed: crc16X25(frame, 0, end), stored: (high << 8) | low };
}
