/**
 * A meter input's frame path (docs/architecture.md#data-flow): the decoder a byte link needs, the
 * bytes through it, each valid reading through the custom scalers into the store
 * (docs/architecture.md#meter-scalers), each rejected frame counted in the store, shown as the
 * status line's `last_error` and logged (the first five and every hundredth at warn, the others at
 * debug). A bad frame is never a reason to reconnect; the link itself is the input's
 * (src/meter/meter-input.ts).
 */
import type { Logger } from '../log.js';
import type { Reading } from '../reading/reading.js';
import type { ReadingStore } from '../reading/store.js';
import type { MeterSettings } from '../config/types.js';
import type { StatusPort } from '../output.js';
import { AutoDecoder } from './auto-decoder.js';
import type { DecodeResult, MeterDataError, MeterDecoder } from './decoder.js';
import type { MeterFacts } from './meter-facts.js';
import { createDecoder, type DecoderOptions } from './protocols.js';
import { applyScalers } from './scalers.js';
import type { MeterSource } from './source.js';

/** What the frame path reads from and tells its input. */
export interface FrameOwner {
  /** The settings the input runs with (custom scalers, encryption key). */
  settings(): MeterSettings;
  /** The input's status port (it changes when the input starts). */
  status(): StatusPort<MeterFacts>;
  /** A valid reading arrived (the input resets its backoff and keeps a detected setting). */
  valid(): void;
}

export class FramePath {
  private decoder: MeterDecoder | undefined;
  private rejectionsLogged = 0;
  /** The rejection shown as `last_error` (set only when it changes). */
  private lastError: string | undefined;

  constructor(
    private readonly store: ReadingStore,
    private readonly logger: Logger,
    private readonly now: () => number,
    private readonly owner: FrameOwner,
  ) {}

  /** The decoder of a new link that delivers bytes. */
  useDecoder(source: MeterSource, options: DecoderOptions): void {
    const protocol = 'protocol' in source ? source.protocol : 'dsmr';
    this.decoder =
      protocol !== 'auto'
        ? createDecoder(protocol, options)
        : new AutoDecoder(options, (found) => this.logger.info(`protocol detected: ${found}`));
  }

  /** No decoder: the link delivers finished readings, or it closed. */
  dropDecoder(): void {
    this.decoder = undefined;
  }

  /** The protocol is still being recognised (`protocol=auto` on a byte link). */
  get recognising(): boolean {
    return this.decoder instanceof AutoDecoder;
  }

  /** A new link: its rejections start over as far as `last_error` goes. */
  forgetLastError(): void {
    this.lastError = undefined;
  }

  /** Bytes of a link that delivers bytes, after the store counted them. */
  bytes(chunk: Buffer): void {
    const decoder = this.decoder;
    if (!decoder) return;
    let results: DecodeResult[];
    try {
      results = decoder.push(chunk, this.now());
    } catch (error) {
      // Decoders return errors as results; anything thrown is a defect, counted and contained here.
      decoder.reset();
      this.store.reject('parse');
      this.logger.error(`decoder failed: ${(error as Error).stack ?? String(error)}`);
      return;
    }
    this.handleResults(results);
    if (
      decoder instanceof AutoDecoder &&
      decoder.unrecognized &&
      this.store.meter.status !== 'NOT RECOGNIZED'
    ) {
      this.store.setStatus('NOT RECOGNIZED');
    }
  }

  /** All decoder errors end up here. */
  private handleResults(results: readonly DecodeResult[]): void {
    for (const result of results) {
      if (result.ok) this.accept(result.reading);
      else this.reject(result.error);
    }
  }

  /** A valid reading, decoded here or delivered finished by the link. */
  accept(reading: Reading): void {
    this.owner.valid();
    // After the parser, before the store (docs/architecture.md#meter-scalers).
    this.store.ingest(applyScalers(reading, this.owner.settings().scalers));
  }

  /** A rejected frame, decoded here or reported by the link. */
  reject(error: MeterDataError): void {
    this.store.reject(error.kind);
    this.showLastError(`${error.kind}: ${error.message}`);
    if (error.kind === 'encryption') {
      this.store.setStatus(this.owner.settings().encryption_key ? 'ENCRYPTION KEY' : 'KEY REQUIRED');
    }
    this.rejectionsLogged += 1;
    const level = this.rejectionsLogged <= 5 || this.rejectionsLogged % 100 === 0 ? 'warn' : 'debug';
    this.logger.log(
      level,
      `frame rejected (${error.kind}): ${error.message} [${this.rejectionsLogged} so far]`,
    );
  }

  /** `services.<meter>.last_error` in /api/v1/system: the latest rejection of any source, set when it changes. */
  private showLastError(text: string): void {
    if (this.lastError === text) return;
    this.lastError = text;
    this.owner.status().facts({ last_error: text });
  }
}
