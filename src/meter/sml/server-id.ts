/**
 * SML server ids (the meter's identity in OpenResponse / GetListResponse and in 1-0:0.0.9 or
 * 1-0:96.1.0) and the FLAG manufacturer codes they carry.
 *
 * Forms seen on German meters:
 * - 10 bytes `0A|09 01 F L G BB NNNNNNNN`: device id after DIN 43863-5, printed as
 *   `1FLGBBnnnnnnnn` (medium 1 = electricity, 3-letter FLAG code, fabrication block BB as two hex
 *   digits, serial as 8 decimal digits). An EasyMeter sends 09 01 "ESY" 11 03b599a5 and states
 *   1ESY1162232997 as its 1-0:0.0.0.
 * - `06 F L G ...` (older EMH eHZ): FLAG code after the first byte, the rest manufacturer-specific.
 * - `01 MM MM II II II II VV TT` (wireless M-Bus style address, EN 13757-3): manufacturer as the
 *   M-Bus 3x5-bit code (little-endian), identification as 8 BCD digits (little-endian).
 * - printable ASCII (EMH eHZ-G, Hager): the text itself.
 * Anything else is shown as hex.
 */

export interface DecodedServerId {
  prefix?: string;
  id: string;
}

/** FLAG association manufacturer codes of meters that speak SML. */
const VENDORS: ReadonlyMap<string, string> = new Map([
  ['DNT', 'Dr. Neuhaus'],
  ['DZG', 'DZG Metering'],
  ['EBZ', 'eBZ'],
  ['EMH', 'EMH metering'],
  ['ESY', 'EasyMeter'],
  ['HLY', 'Holley'],
  ['ISK', 'Iskraemeco'],
  ['ITR', 'Itron'],
  ['LGZ', 'Landis+Gyr'],
]);

export function vendorOf(prefix: string | undefined): string | undefined {
  return prefix === undefined ? undefined : VENDORS.get(prefix);
}

export function isFlagCode(text: string): boolean {
  return /^[A-Z]{3}$/.test(text);
}

export function decodeServerId(serverId: Buffer): DecodedServerId {
  const first = serverId[0];
  if (serverId.length === 10 && (first === 0x0a || first === 0x09)) {
    const flag = serverId.toString('latin1', 2, 5);
    if (isFlagCode(flag)) {
      const block = serverId[5]!.toString(16).padStart(2, '0');
      const serial = serverId.readUInt32BE(6).toString().padStart(8, '0');
      return { prefix: flag, id: `${serverId[1]}${flag}${block}${serial}` };
    }
  }
  if (serverId.length >= 4 && first === 0x06) {
    const flag = serverId.toString('latin1', 1, 4);
    if (isFlagCode(flag)) return { prefix: flag, id: serverId.toString('hex') };
  }
  if (serverId.length === 9 && first === 0x01) {
    const prefix = mbusManufacturer(serverId.readUInt16LE(1));
    const digits = Buffer.from(serverId.subarray(3, 7)).reverse().toString('hex');
    if (prefix !== undefined && /^\d{8}$/.test(digits)) return { prefix, id: digits };
  }
  if (serverId.length > 0 && isPrintable(serverId)) return { id: serverId.toString('latin1') };
  return { id: serverId.toString('hex') };
}

/** EN 13757-3 manufacturer field: three letters, 5 bits each, 'A' = 1. */
function mbusManufacturer(code: number): string | undefined {
  const letters = [(code >> 10) & 0x1f, (code >> 5) & 0x1f, code & 0x1f];
  if (letters.some((letter) => letter < 1 || letter > 26)) return undefined;
  return String.fromCharCode(...letters.map((letter) => letter + 64));
}

export function isPrintable(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte < 0x20 || byte > 0x7e) return false;
  return true;
}
