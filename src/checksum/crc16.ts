/**
 * The reflected CRC-16 variants the gateway checks or computes, each named as in the catalogue of
 * parametrised CRC algorithms (Greg Cook, "CRC RevEng"), with its check value over "123456789":
 *
 * - CRC-16/ARC: polynomial 0x8005 (reflected 0xA001), init 0x0000, no final XOR; check 0xBB3D.
 *   The DSMR P1 telegram checksum (DSMR 5.0.2 §6.2).
 * - CRC-16/MODBUS: polynomial 0x8005 (reflected 0xA001), init 0xFFFF, no final XOR; check 0x4B37.
 *   The Modbus RTU frame check (Modbus over Serial Line V1.02 §2.5.1.2, Appendix B).
 * - CRC-16/IBM-SDLC: polynomial 0x1021 (reflected 0x8408), init 0xFFFF, final XOR 0xFFFF;
 *   check 0x906E. The SML transport frame and message checksum (SML 1.04).
 * - CRC-16/KERMIT: polynomial 0x1021 (reflected 0x8408), init 0x0000, no final XOR; check 0x2189.
 *   Sent by some SML meters in place of X-25.
 *
 * All are computed a byte at a time from a 256-entry table: crc = (crc >>> 8) ^ T[(crc ^ byte) & 0xff].
 */

/**
 * The byte-at-a-time table of a reflected CRC-16: T[n] is the register after byte n.
 * `reflectedPoly`: the polynomial bit-reversed (0x8005 -> 0xA001, 0x1021 -> 0x8408).
 */
export function reflectedCrc16Table(reflectedPoly: number): Uint16Array {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ reflectedPoly : crc >>> 1;
    table[byte] = crc;
  }
  return table;
}

/** Table of polynomial 0x8005 (reflected 0xA001): CRC-16/ARC and CRC-16/MODBUS. */
const TABLE_8005: Uint16Array = reflectedCrc16Table(0xa001);

/** Table of polynomial 0x1021 (reflected 0x8408): X-25 and Kermit. */
const TABLE_1021: Uint16Array = reflectedCrc16Table(0x8408);

/** CRC-16/ARC of bytes[start, end). */
export function crc16Arc(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ TABLE_8005[(crc ^ bytes[i]!) & 0xff]!;
  return crc;
}

/** CRC-16/MODBUS of bytes[start, end). */
export function crc16Modbus(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ TABLE_8005[(crc ^ bytes[i]!) & 0xff]!;
  return crc;
}

/**
 * The register of the reflected 0x1021 CRC over data[start, end) from `init`, before any final
 * XOR: X-25 starts from 0xFFFF and inverts the result, Kermit starts from 0 and keeps it.
 */
export function crc16Register1021(data: Uint8Array, start: number, end: number, init: number): number {
  let crc = init;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ TABLE_1021[(crc ^ data[i]!) & 0xff]!;
  return crc;
}

/** CRC-16/IBM-SDLC of data[start, end). */
export function crc16X25(data: Uint8Array, start = 0, end = data.length): number {
  return (crc16Register1021(data, start, end, 0xffff) ^ 0xffff) & 0xffff;
}

/** CRC-16/KERMIT of data[start, end). */
export function crc16Kermit(data: Uint8Array, start = 0, end = data.length): number {
  return crc16Register1021(data, start, end, 0);
}
