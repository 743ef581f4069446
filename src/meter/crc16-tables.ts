/**
 * The byte-at-a-time table of a reflected CRC-16: T[n] is the register after byte n, so
 * crc = (crc >>> 8) ^ T[(crc ^ byte) & 0xff]. `reflectedPoly`: the polynomial bit-reversed
 * (CRC-16/ARC 0xA001, X-25 and Kermit 0x8408).
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
