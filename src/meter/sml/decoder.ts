import { MeterDataError, type DecodeResult, type MeterDecoder } from '../decoder.js';
import type { SmlCrcAlgorithm } from './crc16-x25.js';
import { DEFAULT_MAX_FRAME_BYTES, SmlFramer, type FramerEvent } from './framer.js';
import { parseSmlFrame, type SmlParseOptions } from './parser.js';
import { smlFrameToReading } from './to-reading.js';
import { systemClock } from '../../clock.js';

export interface SmlDecoderOptions {
  /** Largest frame accepted, escapes included (default 16 KiB); longer runs are an overflow. */
  maxFrameBytes?: number;
  /** Frame and message checksum: 'x25' (SML standard, default) or 'kermit' (some Holley DTZ541). */
  crc?: SmlCrcAlgorithm;
}

export interface SmlDecoderStats {
  framesOk: number;
  crcErrors: number;
  parseErrors: number;
  overflows: number;
  /** Runs of bytes outside complete frames (garbage, partial frames cut short, truncated end). */
  discardedRuns: number;
  discardedBytes: number;
}

export interface SmlDecoder extends MeterDecoder {
  readonly stats: Readonly<SmlDecoderStats>;
  /** Bytes held for a partial frame; bounded by about twice maxFrameBytes. */
  readonly bufferedBytes: number;
  /** End of input (a capture file): a partial frame left over counts as a discarded run. */
  finish(): void;
}

/**
 * SML transport v1 decoder: framer, frame CRC, TL parser and Reading mapping. A frame without
 * escaped data that has the layout of one of the meter's last parsed frames is read by that
 * layout (./layout-reader.ts), giving the Reading the parser would; every other frame is parsed.
 * A result's `frame` is the pushed chunk itself, or a view of it, when the chunk held the whole
 * frame (transports hand over fresh buffers), else a copy.
 */
export function createSmlDecoder(options: SmlDecoderOptions = {}): SmlDecoder {
  const framer = new SmlFramer(options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES);
  const crc = options.crc ?? 'x25';
  const parseOptions: SmlParseOptions = { crc, messageCrc: 'skip' };
  const counts = { framesOk: 0, crcErrors: 0, parseErrors: 0, overflows: 0 };
  const events: FramerEvent[] = [];

  const count = (result: DecodeResult): DecodeResult => {
    if (result.ok) counts.framesOk += 1;
    else if (result.error.kind === 'crc') counts.crcErrors += 1;
    else if (result.error.kind === 'overflow') counts.overflows += 1;
    else counts.parseErrors += 1;
    return result;
  };

  const decodeEvent = (event: FramerEvent, receivedAt: number): DecodeResult => {
    if (event.kind === 'overflow') {
      const error = new MeterDataError('overflow', `SML: no frame end within ${framer.maxFrameBytes} bytes`, {
        discardedBytes: event.discardedBytes,
      });
      return { ok: false, error };
    }
    if (event.kind === 'invalid-escape') {
      return {
        ok: false,
        error: new MeterDataError('parse', 'SML: invalid escape sequence'),
        frame: event.frame,
      };
    }
    const { frame } = event;
    try {
      return { ok: true, reading: smlFrameToReading(parseSmlFrame(frame, parseOptions), receivedAt), frame };
    } catch (error) {
      return { ok: false, error: asMeterDataError(error), frame: event.frame };
    }
  };

  return {
    protocol: 'SML',
    get stats(): SmlDecoderStats {
      return { ...counts, ...framer.stats };
    },
    get bufferedBytes(): number {
      return framer.bufferedBytes;
    },
    push(chunk: Buffer, receivedAt: number): DecodeResult[] {
      try {
        framer.push(chunk, events);
      } catch (error) {
        events.length = 0;
        framer.reset();
        return [count({ ok: false, error: asMeterDataError(error) })];
      }
      const results: DecodeResult[] = [];
      if (events.length === 0) return results;
      for (const event of events) results.push(count(decodeEvent(event, receivedAt)));
      // pop() rather than `length = 0`, which V8 runs as a slower runtime call.
      while (events.length > 0) events.pop();
      return results;
    },
    reset(): void {
      framer.reset();
    },
    finish(): void {
      framer.finish();
    },
  };
}

/** Decodes a whole capture (file contents): one result per frame found. */
export function parseSmlCapture(
  bytes: Buffer,
  options: SmlDecoderOptions & { receivedAt?: number } = {},
): DecodeResult[] {
  const decoder = createSmlDecoder(options);
  const results = decoder.push(bytes, options.receivedAt ?? systemClock.now());
  decoder.finish();
  return results;
}

/** Anything unexpected from the parser still becomes a counted, typed rejection. */
function asMeterDataError(error: unknown): MeterDataError {
  if (error instanceof MeterDataError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new MeterDataError('parse', `SML: ${message}`, { unexpected: true });
}
