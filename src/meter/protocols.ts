import type { MeterDecoder, DecodeResult } from './decoder.js';
import { createD0Decoder, parseD0Capture } from './d0/decoder.js';
import { createDsmrDecoder, parseDsmrCapture } from './dsmr/decoder.js';
import { createSmlDecoder, parseSmlCapture } from './sml/decoder.js';
import type { ProtocolChoice } from './source.js';

export type ConcreteProtocol = Exclude<ProtocolChoice, 'auto'>;

/** Detection order for passive streams: DSMR and SML push by themselves, D0 mode D pushes too. */
export const DETECTION_ORDER: readonly ConcreteProtocol[] = ['dsmr', 'sml', 'd0'];

export interface DecoderOptions {
  /** DSMR AES-128-GCM key (hex) for encrypted telegrams. */
  encryptionKey?: string;
}

export function createDecoder(protocol: ConcreteProtocol, options: DecoderOptions = {}): MeterDecoder {
  switch (protocol) {
    case 'dsmr':
      return createDsmrDecoder(options.encryptionKey ? { encryptionKey: options.encryptionKey } : {});
    case 'sml':
      return createSmlDecoder();
    case 'd0':
      return createD0Decoder();
  }
}

/** All results of a whole capture for one protocol, the end of input closing the last frame (CLI `parse`, file replay). */
export function decodeCapture(bytes: Buffer, protocol: ConcreteProtocol): DecodeResult[] {
  switch (protocol) {
    case 'dsmr':
      return parseDsmrCapture(bytes);
    case 'sml':
      return parseSmlCapture(bytes);
    case 'd0':
      return parseD0Capture(bytes);
  }
}

/** The protocol that yields the most valid frames from a capture (ties: detection order). */
export function detectCaptureProtocol(bytes: Buffer): ConcreteProtocol | undefined {
  let best: { protocol: ConcreteProtocol; ok: number } | undefined;
  for (const protocol of DETECTION_ORDER) {
    const ok = decodeCapture(bytes, protocol).filter((r) => r.ok).length;
    if (ok > 0 && (!best || ok > best.ok)) best = { protocol, ok };
  }
  return best?.protocol;
}
