import { crc32 } from '../checksum/crc32.js';
import type { HistoryPoint, PowerStats } from './point.js';

/**
 * Fixed-size record of one history point, little-endian, 96 bytes:
 *
 *   0 f64 t (bucket start, Unix s)     8 u32 n (readings)     12 u32 import power samples
 *  16 u32 export power samples        20 u32 readings in tariff 1 (0-0:96.14.0 = 1)
 *  24 f64 import min   32 f64 import sum   40 f64 import max
 *  48 f64 export min   56 f64 export sum   64 f64 export max
 *  72 f64 imported kWh (NaN = none)   80 f64 exported kWh (NaN = none)
 *  88 u32 readings in tariff 2        92 u32 CRC-32 of bytes 0..91
 *
 * The tariff counts were reserved zeros before; a record without them reads as no tariff known.
 *
 * A slot that was never written is all zero bytes; anything else whose checksum or fields do not
 * hold (a write torn by a power cut) is corrupt and ignored.
 */
export const RECORD_SIZE = 96;
const CRC_OFFSET = 92;

function writePower(buffer: Buffer, offset: number, stats: PowerStats | undefined): void {
  buffer.writeDoubleLE(stats?.min ?? 0, offset);
  buffer.writeDoubleLE(stats?.sum ?? 0, offset + 8);
  buffer.writeDoubleLE(stats?.max ?? 0, offset + 16);
}

export function encodeRecord(point: HistoryPoint, buffer = Buffer.alloc(RECORD_SIZE), at = 0): Buffer {
  const record = buffer.subarray(at, at + RECORD_SIZE);
  record.fill(0);
  record.writeDoubleLE(point.t, 0);
  record.writeUInt32LE(point.n, 8);
  record.writeUInt32LE(point.pIn?.n ?? 0, 12);
  record.writeUInt32LE(point.pOut?.n ?? 0, 16);
  record.writeUInt32LE(point.nT1 ?? 0, 20);
  record.writeUInt32LE(point.nT2 ?? 0, 88);
  writePower(record, 24, point.pIn);
  writePower(record, 48, point.pOut);
  record.writeDoubleLE(point.eIn ?? Number.NaN, 72);
  record.writeDoubleLE(point.eOut ?? Number.NaN, 80);
  record.writeUInt32LE(crc32(record, 0, CRC_OFFSET), CRC_OFFSET);
  return record;
}

function readPower(record: Buffer, count: number, offset: number): PowerStats | undefined {
  if (count === 0) return undefined;
  return {
    n: count,
    min: record.readDoubleLE(offset),
    sum: record.readDoubleLE(offset + 8),
    max: record.readDoubleLE(offset + 16),
  };
}

/** A slot never written: zeros (the CRC-32 of zeros is not zero, so no stored record looks like it). */
const EMPTY_RECORD = Buffer.alloc(RECORD_SIZE);

function plausible(point: HistoryPoint): boolean {
  const finite = [point.pIn, point.pOut].every(
    (s) => s === undefined || (Number.isFinite(s.min + s.sum + s.max) && s.n <= point.n),
  );
  return finite && Number.isSafeInteger(point.t) && point.t > 0 && point.n > 0;
}

export type DecodedRecord = { kind: 'point'; point: HistoryPoint } | { kind: 'empty' } | { kind: 'corrupt' };

export function decodeRecord(buffer: Buffer, at = 0): DecodedRecord {
  const record = buffer.subarray(at, at + RECORD_SIZE);
  if (record.length < RECORD_SIZE) return { kind: 'corrupt' };
  // Told apart before the checksum: most slots of a young ring are empty, and a start reads them all.
  if (record.equals(EMPTY_RECORD)) return { kind: 'empty' };
  if (record.readUInt32LE(CRC_OFFSET) !== crc32(record, 0, CRC_OFFSET)) return { kind: 'corrupt' };
  const eIn = record.readDoubleLE(72);
  const eOut = record.readDoubleLE(80);
  const point: HistoryPoint = {
    t: record.readDoubleLE(0),
    n: record.readUInt32LE(8),
    eIn: Number.isNaN(eIn) ? null : eIn,
    eOut: Number.isNaN(eOut) ? null : eOut,
  };
  const nT1 = record.readUInt32LE(20);
  const nT2 = record.readUInt32LE(88);
  if (nT1 > 0) point.nT1 = nT1;
  if (nT2 > 0) point.nT2 = nT2;
  const pIn = readPower(record, record.readUInt32LE(12), 24);
  const pOut = readPower(record, record.readUInt32LE(16), 48);
  if (pIn) point.pIn = pIn;
  if (pOut) point.pOut = pOut;
  return plausible(point) ? { kind: 'point', point } : { kind: 'corrupt' };
}
