/**
 * CRC-16 checksums of SML 1.04 (transport protocol v1 frame and the crc16 field of SML_Message).
 * The CRC itself is computed in src/checksum/crc16.ts; this file knows where SML puts it.
 *
 * CRC-16/X-25: polynomial 0x1021 processed bit-reflected (0x8408), init 0xFFFF, xorout 0xFFFF;
 * check value of "123456789" is 0x906E. Used for the transport frame and for each SML message;
 * both store it low byte first (after `1b1b1b1b 1a NN`, and as the two bytes of the message's
 * crc16 Unsigned16).
 *
 * CRC-16/Kermit: same reflected polynomial, init 0x0000, xorout 0x0000 (check value 0x2189). Some
 * Holley DTZ541 firmware puts it in place of X-25, stored high byte first (seen in public SML captures of
 * that meter).
 */

import { crc16Register1021 } from '../../checksum/crc16.js';

export type SmlCrcAlgorithm = 'x25' | 'kermit';

/** Register value before the first byte. */
export const CRC16_INIT: Readonly<Record<SmlCrcAlgorithm, number>> = { x25: 0xffff, kermit: 0 };

/** The checksum of `algorithm` from the register after the last byte (X-25: final XOR 0xFFFF). */
export function finishCrc16(register: number, algorithm: SmlCrcAlgorithm): number {
  return algorithm === 'x25' ? (register ^ 0xffff) & 0xffff : register;
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
  const register = crc16Register1021(frame, 0, Math.max(0, end), CRC16_INIT[algorithm]);
  return { computed: finishCrc16(register, algorithm), stored: storedFrameChecksum(frame, algorithm) };
}

/** The checksum the last two bytes of a transport frame carry (see frameChecksum). */
export function storedFrameChecksum(frame: Uint8Array, algorithm: SmlCrcAlgorithm): number {
  const end = frame.length - 2;
  const low = frame[end] ?? 0;
  const high = frame[end + 1] ?? 0;
  return algorithm === 'kermit' ? (low << 8) | high : (high << 8) | low;
}
