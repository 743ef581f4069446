import { crc32 } from '../checksum/crc32.js';
import type { RecordCodec } from './ring-file.js';

/**
 * The energy registers of one meter at the end of a quarter hour (docs/architecture.md#push): the
 * values of the last reading at or before the boundary, as counters, not deltas, so a receiver
 * that gets a quarter twice or out of order can never count its energy twice. They extend the
 * 15-minute tier in a ring file of their own (`quarters.ring` beside `15m.ring`), so the existing
 * files keep their format.
 */
export interface QuarterCounters {
  /** Quarter start, Unix s. */
  t: number;
  /** Time of the reading the registers come from, ms. */
  at: number;
  /** Import and export registers (kWh): total 1.8.0 / 2.8.0 and tariffs 1.8.1, 1.8.2, 2.8.1, 2.8.2; null: not sent. */
  eIn: number | null;
  eOut: number | null;
  eInT1: number | null;
  eInT2: number | null;
  eOutT1: number | null;
  eOutT2: number | null;
}

export const COUNTER_KEYS = ['eIn', 'eOut', 'eInT1', 'eInT2', 'eOutT1', 'eOutT2'] as const;
export type CounterKey = (typeof COUNTER_KEYS)[number];

/** OBIS code (C.D.E) of each register. */
export const COUNTER_OBIS: Readonly<Record<CounterKey, string>> = {
  eIn: '1.8.0',
  eOut: '2.8.0',
  eInT1: '1.8.1',
  eInT2: '1.8.2',
  eOutT1: '2.8.1',
  eOutT2: '2.8.2',
};

/**
 * Record, little-endian, 72 bytes: 0 f64 t, 8 f64 at, 16..63 six f64 registers in COUNTER_KEYS
 * order (NaN = not sent), 64 u32 zero, 68 u32 CRC-32 of bytes 0..67. An all-zero slot is empty.
 */
export const COUNTERS_RECORD_SIZE = 72;
const CRC_OFFSET = 68;
const EMPTY_COUNTERS = Buffer.alloc(COUNTERS_RECORD_SIZE);

function encode(point: QuarterCounters): Buffer {
  const record = Buffer.alloc(COUNTERS_RECORD_SIZE);
  record.writeDoubleLE(point.t, 0);
  record.writeDoubleLE(point.at, 8);
  COUNTER_KEYS.forEach((key, i) => record.writeDoubleLE(point[key] ?? Number.NaN, 16 + 8 * i));
  record.writeUInt32LE(crc32(record, 0, CRC_OFFSET), CRC_OFFSET);
  return record;
}

function decode(buffer: Buffer, at: number): ReturnType<RecordCodec<QuarterCounters>['decode']> {
  const record = buffer.subarray(at, at + COUNTERS_RECORD_SIZE);
  if (record.length < COUNTERS_RECORD_SIZE) return { kind: 'corrupt' };
  // Never written (zeros) before the checksum, as in record.ts: a start reads every slot.
  if (record.equals(EMPTY_COUNTERS)) return { kind: 'empty' };
  if (record.readUInt32LE(CRC_OFFSET) !== crc32(record, 0, CRC_OFFSET)) return { kind: 'corrupt' };
  const point = { t: record.readDoubleLE(0), at: record.readDoubleLE(8) } as QuarterCounters;
  COUNTER_KEYS.forEach((key, i) => {
    const value = record.readDoubleLE(16 + 8 * i);
    point[key] = Number.isFinite(value) ? value : null;
  });
  const plausible =
    Number.isSafeInteger(point.t) && point.t > 0 && point.t % 900 === 0 && Number.isFinite(point.at);
  return plausible ? { kind: 'point', point } : { kind: 'corrupt' };
}

/** Two records of one quarter: the registers of the later reading win, one by one. */
function merge(stored: QuarterCounters, incoming: QuarterCounters): QuarterCounters {
  const [older, newer] = incoming.at >= stored.at ? [stored, incoming] : [incoming, stored];
  const merged: QuarterCounters = { ...newer };
  for (const key of COUNTER_KEYS) merged[key] = newer[key] ?? older[key];
  return merged;
}

export const COUNTERS_CODEC: RecordCodec<QuarterCounters> = {
  format: 2,
  size: COUNTERS_RECORD_SIZE,
  encode,
  decode,
  merge,
};

/** True when the record carries at least one register. */
export function hasCounters(point: QuarterCounters): boolean {
  return COUNTER_KEYS.some((key) => point[key] !== null);
}
