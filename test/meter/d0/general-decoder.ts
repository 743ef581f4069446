import assert from 'node:assert/strict';
import { type DecodeResult, MeterDataError } from '../../../src/meter/decoder.js';
import { type D0Decoder, type D0DecoderCounters, decodeD0Frame } from '../../../src/meter/d0/decoder.js';
import { D0Framer, DEFAULT_MAX_FRAME_SIZE, type D0FramerEvent } from '../../../src/meter/d0/framer.js';

/**
 * The reference for the layout tests: the framer and the general path alone (parseD0Readout +
 * d0ReadoutToReading for every frame), with the decoder's counters. The decoder must give the
 * same results and counters for any input.
 */
export class GeneralDecoder {
  private readonly framer: D0Framer;
  private readonly verifyBlockCheck: boolean;
  private readings = 0;
  private readonly rejected: D0DecoderCounters['rejected'] = {
    crc: 0,
    parse: 0,
    overflow: 0,
    encryption: 0,
    timeout: 0,
  };

  constructor(options: { maxFrameSize?: number; verifyBlockCheck?: boolean } = {}) {
    this.framer = new D0Framer({ maxFrameSize: options.maxFrameSize ?? DEFAULT_MAX_FRAME_SIZE });
    this.verifyBlockCheck = options.verifyBlockCheck ?? true;
  }

  get counters(): D0DecoderCounters {
    const { framer, readings, rejected } = this;
    return { ...framer.counters, pendingBytes: framer.pendingBytes, readings, rejected: { ...rejected } };
  }

  push(chunk: Buffer): DecodeResult[] {
    return this.framer.push(chunk).map((event) => this.count(this.resultOf(event)));
  }

  flush(): DecodeResult[] {
    return this.framer.flush().map((event) => this.count(this.resultOf(event)));
  }

  private count(result: DecodeResult): DecodeResult {
    if (result.ok) this.readings++;
    else this.rejected[result.error.kind]++;
    return result;
  }

  private resultOf(event: D0FramerEvent): DecodeResult {
    if (event.kind === 'frame') {
      return decodeD0Frame(event.frame, 0, { verifyBlockCheck: this.verifyBlockCheck });
    }
    if (event.kind === 'truncated')
      return { ok: false, error: new MeterDataError('parse', ''), frame: event.frame };
    return { ok: false, error: new MeterDataError('overflow', '') };
  }
}

/** A result as compared: the Reading (and its value order) or the rejection kind, and the frame. */
export function comparable(result: DecodeResult): unknown {
  const frame = result.frame?.toString('latin1');
  if (!result.ok) return { rejected: result.error.kind, frame };
  return { reading: result.reading, order: [...result.reading.values.keys()], frame };
}

/** Asserts that the decoder and the reference give the same results for `chunk`, and the same counters. */
export function pushBoth(
  decoder: D0Decoder,
  reference: GeneralDecoder,
  chunk: Buffer,
  label: string,
): DecodeResult[] {
  const results = decoder.push(chunk, 0);
  assert.deepStrictEqual(results.map(comparable), reference.push(chunk).map(comparable), label);
  assert.deepStrictEqual(decoder.counters, reference.counters, `${label}: counters`);
  return results;
}

export function flushBoth(decoder: D0Decoder, reference: GeneralDecoder, label: string): void {
  assert.deepStrictEqual(decoder.flush(0).map(comparable), reference.flush().map(comparable), label);
  assert.deepStrictEqual(decoder.counters, reference.counters, `${label}: counters`);
}
