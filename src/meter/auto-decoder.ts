import type { MeterProtocol } from '../reading/reading.js';
import type { DecodeResult, MeterDecoder } from './decoder.js';
import { createDecoder, DETECTION_ORDER, type ConcreteProtocol, type DecoderOptions } from './protocols.js';

/** Bytes without any valid frame after which detection reports NOT RECOGNIZED (it keeps trying). */
const UNRECOGNIZED_AFTER_BYTES = 32 * 1024;

/**
 * `protocol=auto` on a passive stream: every candidate decoder sees the same bytes until one yields
 * a valid frame; from then on only that one is used. Rejections during detection are not counted
 * (they are the other protocols failing on foreign bytes).
 */
export class AutoDecoder implements MeterDecoder {
  private candidates: Array<{ protocol: ConcreteProtocol; decoder: MeterDecoder }>;
  private locked: { protocol: ConcreteProtocol; decoder: MeterDecoder } | undefined;
  private bytesSeen = 0;

  constructor(
    private readonly options: DecoderOptions = {},
    private readonly onDetected: (protocol: ConcreteProtocol) => void = () => undefined,
  ) {
    this.candidates = DETECTION_ORDER.map((protocol) => ({
      protocol,
      decoder: createDecoder(protocol, options),
    }));
  }

  get protocol(): MeterProtocol {
    return this.locked?.decoder.protocol ?? 'DSMR';
  }

  get detected(): ConcreteProtocol | undefined {
    return this.locked?.protocol;
  }

  /** True once enough bytes passed without any protocol matching. */
  get unrecognized(): boolean {
    return !this.locked && this.bytesSeen >= UNRECOGNIZED_AFTER_BYTES;
  }

  push(chunk: Buffer, receivedAt: number): DecodeResult[] {
    if (this.locked) return this.locked.decoder.push(chunk, receivedAt);
    this.bytesSeen += chunk.length;
    for (const candidate of this.candidates) {
      const results = candidate.decoder.push(chunk, receivedAt);
      const firstOk = results.findIndex((result) => result.ok);
      if (firstOk < 0) continue;
      this.locked = candidate;
      this.candidates = [];
      this.onDetected(candidate.protocol);
      return results.slice(firstOk);
    }
    return [];
  }

  reset(): void {
    if (this.locked) this.locked.decoder.reset();
    else
      this.candidates = DETECTION_ORDER.map((protocol) => ({
        protocol,
        decoder: createDecoder(protocol, this.options),
      }));
    this.bytesSeen = 0;
  }
}
