import { type DecodeResult, type MeterDecoder, MeterDataError } from '../decoder.js';
import { D0Framer, DEFAULT_MAX_FRAME_SIZE, type D0FramerCounters, type D0FramerEvent } from './framer.js';
import { parseD0Readout, type D0ParseOptions } from './parser.js';
import { d0ReadoutToReading } from './to-reading.js';
import { systemClock } from '../../clock.js';

/**
 * One framed readout -> Reading: the one decode path (IEC 62056-21 framer -> BCC -> pure parser ->
 * Reading). A parser error rejects the readout as 'parse' (or 'crc' for a BCC mismatch).
 */
export function decodeD0Frame(frame: Buffer, receivedAt: number, options: D0ParseOptions = {}): DecodeResult {
  try {
    return { ok: true, reading: d0ReadoutToReading(parseD0Readout(frame, options), receivedAt), frame };
  } catch (error) {
    if (error instanceof MeterDataError) return { ok: false, error, frame };
    const message = `IEC 62056-21 readout not understood: ${String(error)}`;
    return { ok: false, error: new MeterDataError('parse', message), frame };
  }
}

export interface D0DecoderOptions {
  /** Longest readout kept (bytes), default 64 KiB; longer runs are discarded as 'overflow'. */
  maxFrameSize?: number;
  /** Reject readouts whose BCC does not match (default true). */
  verifyBlockCheck?: boolean;
}

/**
 * Framer counters plus outcomes. bytesIn = frameBytes + garbageBytes + discardedBytes + pendingBytes;
 * frames + truncated + overflows = readings + the rejected counts.
 */
export interface D0DecoderCounters extends D0FramerCounters {
  /** Bytes of the unfinished frame held for the next push. */
  pendingBytes: number;
  readings: number;
  rejected: Record<MeterDataError['kind'], number>;
}

/** The D0 decoder with its counters and an end-of-stream flush (captures, request sessions). */
export interface D0Decoder extends MeterDecoder {
  readonly counters: D0DecoderCounters;
  /** End of stream: a data message ended by its `!` line but no ETX/BCC is decoded; a partial frame is a parse rejection. */
  flush(receivedAt: number): DecodeResult[];
}

/** IEC 62056-21 decoder for push readouts (mode D) and captured request-mode byte streams. */
class D0StreamDecoder implements D0Decoder {
  readonly protocol = 'IEC62056-21' as const;
  private readonly framer: D0Framer;
  private readonly parseOptions: D0ParseOptions;
  private readings = 0;
  private readonly rejected: D0DecoderCounters['rejected'] = {
    crc: 0,
    parse: 0,
    overflow: 0,
    encryption: 0,
    timeout: 0,
  };

  constructor(options: D0DecoderOptions) {
    const maxFrameSize = options.maxFrameSize ?? DEFAULT_MAX_FRAME_SIZE;
    this.framer = new D0Framer({ maxFrameSize });
    this.parseOptions = { verifyBlockCheck: options.verifyBlockCheck ?? true };
  }

  get counters(): D0DecoderCounters {
    return {
      ...this.framer.counters,
      pendingBytes: this.framer.pendingBytes,
      readings: this.readings,
      rejected: { ...this.rejected },
    };
  }

  push(chunk: Buffer, receivedAt: number): DecodeResult[] {
    return this.results(this.framer.push(chunk), receivedAt);
  }

  flush(receivedAt: number): DecodeResult[] {
    return this.results(this.framer.flush(), receivedAt);
  }

  reset(): void {
    this.framer.reset();
  }

  private results(events: D0FramerEvent[], receivedAt: number): DecodeResult[] {
    const results: DecodeResult[] = [];
    for (const event of events) {
      const result = this.resultOf(event, receivedAt);
      if (result.ok) this.readings++;
      else this.rejected[result.error.kind]++;
      results.push(result);
    }
    return results;
  }

  private resultOf(event: D0FramerEvent, receivedAt: number): DecodeResult {
    if (event.kind === 'frame') return decodeD0Frame(event.frame, receivedAt, this.parseOptions);
    if (event.kind === 'truncated') {
      const error = new MeterDataError('parse', 'IEC 62056-21 readout cut off by the start of the next one');
      return { ok: false, error, frame: event.frame };
    }
    const error = new MeterDataError('overflow', 'IEC 62056-21 readout exceeds the maximum frame size', {
      discarded: event.discarded,
    });
    return { ok: false, error };
  }
}

export function createD0Decoder(options: D0DecoderOptions = {}): D0Decoder {
  return new D0StreamDecoder(options);
}

/** Decodes a whole capture (file, recorded stream) into one result per readout. */
export function parseD0Capture(bytes: Buffer, receivedAt: number = systemClock.now()): DecodeResult[] {
  const decoder = createD0Decoder();
  return [...decoder.push(bytes, receivedAt), ...decoder.flush(receivedAt)];
}
