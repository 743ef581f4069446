import type { ModbusFunc, ValueType } from './definition.js';

/**
 * A Modbus request's `value` (text) encoded by its `type` into 16-bit registers, high word first
 * (the word order of the gateway's own register layout, docs/architecture.md#actions):
 * - hex: 1..16 hex digits (optional 0x), right-aligned in whole words (`0x1` is one word 0x0001);
 * - short: int16; int: int32 (2 words); long: int64 (4 words);
 * - float: IEEE 754 binary32 (2 words); double: binary64 (4 words).
 * Modbus Application Protocol V1.1b3 §6.5: FC 5 writes ON as 0xFF00 and OFF as 0x0000; here any
 * non-zero encoded value is ON. FC 15 writes the bits of the encoded words as coils, bit 0 of the
 * first word first.
 */

export type Encoded = { ok: true; words: number[] } | { ok: false; message: string };

const WORDS: Record<ValueType, number> = { hex: 0, short: 1, int: 2, long: 4, float: 2, double: 4 };

function fail(message: string): Encoded {
  return { ok: false, message };
}

function wordsOf(buffer: Buffer): number[] {
  const words: number[] = [];
  for (let offset = 0; offset < buffer.length; offset += 2) words.push(buffer.readUInt16BE(offset));
  return words;
}

function encodeHex(text: string): Encoded {
  const digits = text.replace(/^0x/i, '');
  if (!/^[0-9A-Fa-f]{1,16}$/.test(digits)) return fail('must be 1..16 hexadecimal digits (optional 0x)');
  const padded = digits.padStart(Math.ceil(digits.length / 4) * 4, '0');
  return { ok: true, words: wordsOf(Buffer.from(padded, 'hex')) };
}

function encodeInteger(text: string, type: 'short' | 'int' | 'long'): Encoded {
  if (!/^[+-]?\d+$/.test(text.trim())) return fail(`must be an integer for type ${type}`);
  const value = BigInt(text.trim());
  const bits = BigInt(WORDS[type] * 16);
  const min = -(1n << (bits - 1n));
  const max = (1n << (bits - 1n)) - 1n;
  if (value < min || value > max) return fail(`does not fit type ${type} (${min}..${max})`);
  const buffer = Buffer.alloc(WORDS[type] * 2);
  if (type === 'short') buffer.writeInt16BE(Number(value));
  else if (type === 'int') buffer.writeInt32BE(Number(value));
  else buffer.writeBigInt64BE(value);
  return { ok: true, words: wordsOf(buffer) };
}

function encodeFloat(text: string, type: 'float' | 'double'): Encoded {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(value)) return fail(`must be a finite number for type ${type}`);
  if (type === 'float' && Math.abs(value) > 3.4028234663852886e38)
    return fail('does not fit type float (binary32)');
  const buffer = Buffer.alloc(WORDS[type] * 2);
  if (type === 'float') buffer.writeFloatBE(value);
  else buffer.writeDoubleBE(value);
  return { ok: true, words: wordsOf(buffer) };
}

/** The registers of `text` by `type`; an error naming the rule when it does not fit. */
export function encodeValue(text: string, type: ValueType): Encoded {
  switch (type) {
    case 'hex':
      return encodeHex(text);
    case 'short':
    case 'int':
    case 'long':
      return encodeInteger(text, type);
    case 'float':
    case 'double':
      return encodeFloat(text, type);
  }
}

/** What one request writes: registers (FC 6, 16) or coils (FC 5, 15). */
export type ModbusPayload = { registers: number[] } | { coils: boolean[] };

/** The encoded value shaped for the function code; FC 6 takes exactly one register. */
export function payloadFor(
  func: ModbusFunc,
  text: string,
  type: ValueType,
): Encoded & { payload?: ModbusPayload } {
  const encoded = encodeValue(text, type);
  if (!encoded.ok) return encoded;
  const { words } = encoded;
  switch (func) {
    case 5:
      return { ...encoded, payload: { coils: [words.some((word) => word !== 0)] } };
    case 6:
      if (words.length !== 1) return fail(`type ${type} needs ${words.length} registers; FC 6 writes one`);
      return { ...encoded, payload: { registers: words } };
    case 15:
      return {
        ...encoded,
        payload: {
          coils: words.flatMap((word) => Array.from({ length: 16 }, (_, bit) => ((word >> bit) & 1) === 1)),
        },
      };
    case 16:
      return { ...encoded, payload: { registers: words } };
  }
}
