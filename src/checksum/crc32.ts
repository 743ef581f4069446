/**
 * CRC-32 (ISO-HDLC: reflected polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF), the
 * checksum of zlib, PNG and Ethernet; check value of "123456789" is 0xCBF43926. node:zlib has
 * crc32() only from Node 20.15 / 22.2, and the package supports every Node 20.
 */
const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
