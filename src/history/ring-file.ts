import { constants } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from '../checksum/crc32.js';
import { mergePoints, type HistoryPoint } from './point.js';
import { decodeRecord, encodeRecord, RECORD_SIZE, type DecodedRecord } from './record.js';
import type { Tier } from './tiers.js';

/**
 * How one kind of fixed-size record is stored in a ring: its size and format number (both in the
 * header, so a file of another kind is never read as this one), its encoding and how two records
 * of one bucket combine. The history points are one kind; the quarter-hour counters
 * (quarter-counters.ts) another, in a ring file of their own.
 */
export interface RecordCodec<P extends { t: number }> {
  format: number;
  size: number;
  encode(point: P): Buffer;
  decode(buffer: Buffer, at: number): { kind: 'point'; point: P } | { kind: 'empty' } | { kind: 'corrupt' };
  merge(stored: P, incoming: P): P;
}

export const POINT_CODEC: RecordCodec<HistoryPoint> = {
  format: 1,
  size: RECORD_SIZE,
  encode: (point) => encodeRecord(point),
  decode: (buffer, at): DecodedRecord => decodeRecord(buffer, at),
  merge: (stored, incoming) => mergePoints(stored, incoming),
};

/**
 * One tier's ring file: a 64-byte header, then `capacity` fixed-size records; the bucket numbered
 * k lives in slot k mod capacity, so the file never grows and the oldest bucket is the one
 * overwritten. Each closed bucket is one positioned write of its record followed by fdatasync,
 * so a crash loses at most the record being written, and a torn record fails its checksum.
 *
 * Header: bytes 0..7 "MGHIST\r\n", u32 format 1, u32 record size, u32 capacity, u32 nominal
 * bucket seconds, zeros, u32 CRC-32 of bytes 0..59 at 60. A file whose header does not match the
 * tier (or a directory in its place) is moved aside as `<name>.corrupt-<ms>` and replaced by an empty one.
 */
export const HEADER_SIZE = 64;
const MAGIC = Buffer.from('MGHIST\r\n', 'latin1');

export function ringHeader(tier: Tier, codec: { format: number; size: number } = POINT_CODEC): Buffer {
  const header = Buffer.alloc(HEADER_SIZE);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(codec.format, 8);
  header.writeUInt32LE(codec.size, 12);
  header.writeUInt32LE(tier.capacity, 16);
  header.writeUInt32LE(tier.nominalSeconds, 20);
  header.writeUInt32LE(crc32(header, 0, 60), 60);
  return header;
}

export function ringFileSize(tier: Tier, codec: { size: number } = POINT_CODEC): number {
  return HEADER_SIZE + tier.capacity * codec.size;
}

/** What a write did: stored the point, merged it into a record of the same bucket, or kept a newer bucket's record. */
export type WriteOutcome = 'written' | 'merged' | 'kept-newer';

export interface LoadCounts {
  points: number;
  empty: number;
  corrupt: number;
}

export class RingFile<P extends { t: number } = HistoryPoint> {
  private constructor(
    readonly path: string,
    readonly tier: Tier,
    private readonly handle: FileHandle,
    private readonly codec: RecordCodec<P>,
  ) {}

  /** Opens the tier's file, creating it (temp file, fsync, rename, fsync of the directory) when absent or unusable. */
  static async open(path: string, tier: Tier, now: number): Promise<{ ring: RingFile; movedAside?: string }> {
    return RingFile.openWith(path, tier, now, POINT_CODEC);
  }

  /** As `open`, for a ring of another record kind. */
  static async openWith<Q extends { t: number }>(
    path: string,
    tier: Tier,
    now: number,
    codec: RecordCodec<Q>,
  ): Promise<{ ring: RingFile<Q>; movedAside?: string }> {
    let movedAside: string | undefined;
    const size = ringFileSize(tier, codec);
    try {
      const handle = await open(path, constants.O_RDWR);
      const header = Buffer.alloc(HEADER_SIZE);
      await handle.read(header, 0, HEADER_SIZE, 0);
      if (header.equals(ringHeader(tier, codec))) {
        // A short file (cut by a crash of the file system) reads as empty slots at its end.
        if ((await handle.stat()).size !== size) await handle.truncate(size);
        return { ring: new RingFile(path, tier, handle, codec) };
      }
      await handle.close();
      movedAside = `${path}.corrupt-${now}`;
      await rename(path, movedAside);
    } catch (error) {
      // A directory (or anything else that opens as one) where the file belongs is moved aside too.
      if ((error as NodeJS.ErrnoException).code === 'EISDIR') {
        movedAside = `${path}.corrupt-${now}`;
        await rename(path, movedAside);
      } else if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await createRingFile(path, tier, codec);
    const handle = await open(path, constants.O_RDWR);
    return { ring: new RingFile(path, tier, handle, codec), movedAside };
  }

  private slotOf(t: number): number {
    const k = this.tier.numberOf(t) % this.tier.capacity;
    return k < 0 ? k + this.tier.capacity : k;
  }

  private position(slot: number): number {
    return HEADER_SIZE + slot * this.codec.size;
  }

  /** The valid point in a slot, when its bucket is the one `t` names. */
  private async readSlot(slot: number): Promise<P | undefined> {
    const buffer = Buffer.alloc(this.codec.size);
    await this.handle.read(buffer, 0, this.codec.size, this.position(slot));
    const decoded = this.codec.decode(buffer, 0);
    return decoded.kind === 'point' && this.slotOf(decoded.point.t) === slot ? decoded.point : undefined;
  }

  /**
   * Stores a closed bucket. A record of the same bucket already there (the clock went back, or a
   * restart within the bucket) is merged with it; a record of a newer bucket is never replaced by
   * an older one (a clock that jumped back must not destroy newer data).
   */
  async write(point: P): Promise<{ outcome: WriteOutcome; stored: P }> {
    const slot = this.slotOf(point.t);
    const existing = await this.readSlot(slot);
    if (existing && existing.t > point.t) return { outcome: 'kept-newer', stored: existing };
    const stored = existing?.t === point.t ? this.codec.merge(existing, point) : point;
    await this.handle.write(this.codec.encode(stored), 0, this.codec.size, this.position(slot));
    await this.handle.datasync();
    return { outcome: existing?.t === point.t ? 'merged' : 'written', stored };
  }

  /** Every valid point of the file (any order) and how many slots were empty or corrupt. */
  async readAll(): Promise<{ points: P[]; counts: LoadCounts }> {
    return this.decodeSlots(0, this.tier.capacity);
  }

  /** Valid points of the buckets numbered first..last (at most one ring's worth), ascending by t. */
  async readRange(first: number, last: number): Promise<P[]> {
    const count = Math.min(last - first + 1, this.tier.capacity);
    if (count <= 0) return [];
    const start = ((first % this.tier.capacity) + this.tier.capacity) % this.tier.capacity;
    const head = Math.min(count, this.tier.capacity - start);
    const parts = [await this.decodeSlots(start, head)];
    if (head < count) parts.push(await this.decodeSlots(0, count - head));
    return parts
      .flatMap((part) => part.points)
      .filter((point) => {
        const k = this.tier.numberOf(point.t);
        return k >= first && k <= last;
      })
      .sort((a, b) => a.t - b.t);
  }

  private async decodeSlots(start: number, count: number): Promise<{ points: P[]; counts: LoadCounts }> {
    const buffer = Buffer.alloc(count * this.codec.size);
    await this.handle.read(buffer, 0, buffer.length, this.position(start));
    const counts: LoadCounts = { points: 0, empty: 0, corrupt: 0 };
    const points: P[] = [];
    for (let i = 0; i < count; i++) {
      const decoded = this.codec.decode(buffer, i * this.codec.size);
      if (decoded.kind === 'point' && this.slotOf(decoded.point.t) === start + i) {
        points.push(decoded.point);
        counts.points += 1;
      } else if (decoded.kind === 'empty') counts.empty += 1;
      else counts.corrupt += 1;
    }
    return { points, counts };
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

async function createRingFile(
  path: string,
  tier: Tier,
  codec: { format: number; size: number },
): Promise<void> {
  const temporary = `${path}.tmp`;
  const handle = await open(temporary, 'w', 0o644);
  try {
    await handle.write(ringHeader(tier, codec), 0, HEADER_SIZE, 0);
    await handle.truncate(ringFileSize(tier, codec));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
  const directory = await open(dirname(path), 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}
