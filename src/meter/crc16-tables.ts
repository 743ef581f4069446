/**
 * Lookup tables of a reflected CRC-16 for slicing-by-8: Tk[n] at k * 256 + n (k = 0..7) is the
 * register after byte n followed by k zero bytes. T0 alone is the byte-at-a-time table,
 * crc = (crc >>> 8) ^ T0[(crc ^ byte) & 0xff]; Tk = T(k-1) shifted through one more zero byte.
 * `reflectedPoly`: the polynomial bit-reversed (CRC-16/ARC 0xA001, X-25 and Kermit 0x8408).
 */
export function slicingBy8Tables(reflectedPoly: number): Uint16Array {
  const tables = new Uint16Array(8 * 256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ reflectedPoly : crc >>> 1;
    tables[byte] = crc;
  }
  for (let i = 256; i < tables.length; i++) {
    const previous = tables[i - 256]!;
    tables[i] = (previous >>> 8) ^ tables[previous & 0xff]!;
  }
  return tables;
}
