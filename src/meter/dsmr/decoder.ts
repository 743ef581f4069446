import { MeterDataError, type DecodeResult, type MeterDecoder } from '../decoder.js';
import { checkDsmrCrcAt, crcHex } from './crc16-arc.js';
import { DEFAULT_MAX_FRAME_BYTES, DsmrFramer, type FramerEvent } from './framer.js';
import { parseDsmrTelegram } from './parser.js';
import { withDsmrEncryption } from './encryption.js';
import { dsmrToReading } from './to-reading.js';
import { systemClock } from '../../clock.js';

export interface DsmrDecoderOptions {
  /** Longest telegram accepted before its '!' (default 16 KiB); longer runs are dropped as overflow. */
  maxFrameBytes?: number;
  /** AES-128-GCM key (32 hex digits) for encrypted (Luxembourg Smarty) telegrams. */
  encryptionKey?: string;
}

/**
 * Framer + CRC-16/ARC check + parser + Reading for a DSMR P1 byte stream. Always wrapped by the
 * encryption layer: plain telegrams pass through it, encrypted ones are decrypted with the key or
 * rejected as 'encryption' (KEY REQUIRED / ENCRYPTION KEY).
 */
export function createDsmrDecoder(options: DsmrDecoderOptions = {}): MeterDecoder {
  return withDsmrEncryption(createPlainDsmrDecoder(options), options.encryptionKey);
}

/**
 * DSMR 4 and 5 end every telegram with a CRC (DSMR 5.0.2 §6.2; DSMR 2.2 has none): once a stream
 * has sent a telegram with a valid CRC, a telegram without one is rejected, not read. Otherwise a
 * line cut before the CRC, or bytes forged onto the wire, would pass as a reading after good ones.
 */
function createPlainDsmrDecoder(options: DsmrDecoderOptions): MeterDecoder {
  const framer = new DsmrFramer(options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES);
  const crc = { seen: false };
  return {
    protocol: 'DSMR',
    push(chunk: Buffer, receivedAt: number): DecodeResult[] {
      const events = framer.push(chunk);
      const results: DecodeResult[] = [];
      for (const event of events) results.push(resultOf(event, receivedAt, crc));
      return results;
    },
    reset(): void {
      framer.reset();
    },
  };
}

/** Every telegram of a capture file, in order (the CLI `parse` command). */
export function parseDsmrCapture(bytes: Buffer, receivedAt: number = systemClock.now()): DecodeResult[] {
  const framer = new DsmrFramer();
  return [...framer.push(bytes), ...framer.flush()].map((event) => resultOf(event, receivedAt));
}

function resultOf(event: FramerEvent, receivedAt: number, crc?: { seen: boolean }): DecodeResult {
  return 'frame' in event ? decodeDsmrFrame(event.frame, receivedAt, crc) : { ok: false, error: event.error };
}

/**
 * One framed telegram -> Reading, the one decode path: CRC-16/ARC check, pure parser
 * (parseDsmrTelegram), Reading (dsmrToReading). A CRC mismatch rejects the telegram before
 * anything of it is read; a telegram without any data object is rejected rather than handed on as
 * an empty reading.
 */
export function decodeDsmrFrame(
  frame: Buffer,
  receivedAt: number,
  /** The stream's CRC history: `seen` once a telegram had a valid CRC; absent, no history. */
  crcHistory?: { seen: boolean },
): DecodeResult {
  // latin1: one character per byte, so text positions are byte positions.
  const text = frame.toString('latin1');
  const start = text.indexOf('/');
  const end = start < 0 ? -1 : text.indexOf('!', start);
  const crc = checkDsmrCrcAt(frame, start, end);
  if (crc.kind === 'mismatch') {
    const [field, computed] = [crcHex(crc.field), crcHex(crc.computed)];
    const message = `CRC-16/ARC mismatch: telegram says ${field}, computed ${computed}`;
    const error = new MeterDataError('crc', message, { field, computed });
    return { ok: false, error, frame };
  }
  if (crc.kind === 'malformed') return { ok: false, error: new MeterDataError('parse', crc.reason), frame };
  if (crc.kind === 'absent' && crcHistory?.seen) {
    const message = 'telegram without CRC from a meter that sent CRCs (DSMR 4/5)';
    return { ok: false, error: new MeterDataError('crc', message), frame };
  }
  if (crc.kind === 'match' && crcHistory) crcHistory.seen = true;
  try {
    const telegram = parseDsmrTelegram(text);
    if (telegram.objects.length === 0) {
      const error = new MeterDataError('parse', 'telegram without data objects', {
        problems: telegram.problems,
      });
      return { ok: false, error, frame };
    }
    return { ok: true, reading: dsmrToReading(telegram, receivedAt), frame };
  } catch (error) {
    if (error instanceof MeterDataError) return { ok: false, error, frame };
    const internal = new MeterDataError('parse', `telegram could not be read: ${String(error)}`, {
      internal: true,
    });
    return { ok: false, error: internal, frame };
  }
}
