import { Backoff, RECONNECT_CAP_MS, clockRetryTimer, type RetryTimer } from '../backoff.js';
import type { Timer } from '../clock.js';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import type { Reading } from '../reading/reading.js';
import type { ReadingStore } from '../reading/store.js';
import type { AppConfig, MeterSettings } from '../config/types.js';
import type { Output, OutputView } from '../output.js';
import { AutoDecoder } from './auto-decoder.js';
import type { DecodeResult, MeterDataError, MeterDecoder } from './decoder.js';
import { SerialDetection } from './probe/serial-detection.js';
import { applyScalers, onlyScalersChanged } from './scalers.js';
import type { SerialSource } from './transport/serial.js';
import { createTransport, type MeterLink } from './transport/factory.js';
import { createDecoder, type DecoderOptions } from './protocols.js';
import { interfaceOfSource, parseSource, type MeterSource } from './source.js';

/**
 * What one meter input reads for: the store it feeds, its settings and its line in the services
 * status. The primary meter's are the context store, `meter.*` and `meter`.
 */
export interface MeterBinding {
  store: ReadingStore;
  settings: () => MeterSettings;
  service: string;
}

/** Silence on an open link after which it is closed and reopened (serialport reports no close when the far end dies). */
const WATCHDOG_FACTOR = 3;

/**
 * Meter input: transport -> decoder -> store, with reconnect by capped exponential backoff (1 s
 * doubling to 60 s, reset after a valid frame), a no-data watchdog, and a restart whenever a meter.*
 * setting changes. A bad frame is counted, never a reason to reconnect (docs/architecture.md#data-flow). All
 * decoder errors end up in one place: `handleResults`. Transports that deliver finished readings (remote
 * gateway, IEC 62056-21 request session) bypass the decoder. `serial:` with `protocol=auto` is
 * resolved by the probe first (status RECOGNITION, NOT RECOGNIZED when nothing matched).
 */
export class MeterInput implements Output<MeterSettings> {
  /** The key of its service line (`meter`, `meter:<id>`): the runner's records go there too. */
  readonly name: string;
  readonly required = true;
  readonly watches = ['meter'] as const;
  /** The meter settings the link was opened with. */
  private applied: MeterSettings | undefined;
  private link: MeterLink | undefined;
  private decoder: MeterDecoder | undefined;
  private source: MeterSource | undefined;
  private readonly detection: SerialDetection;
  private readonly backoff = new Backoff(1000, RECONNECT_CAP_MS);
  private cancelReconnect: (() => void) | undefined;
  private watchdog: Timer | undefined;
  private running = false;
  /** Bumped by disconnect(): a connect() that awaited across it gives up. */
  private generation = 0;
  /** A valid frame arrived since the link opened (otherwise a detected serial setting is probed again). */
  private validSinceOpen = false;
  private rejectionsLogged = 0;

  private readonly binding: MeterBinding;

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
    private readonly retryTimer: RetryTimer = clockRetryTimer(context.clock),
    binding?: MeterBinding,
  ) {
    this.detection = new SerialDetection(context.clock);
    this.binding = binding ?? {
      store: context.store,
      settings: () => context.config.config.meter,
      service: 'meter',
    };
    this.name = this.binding.service;
  }

  /** The store this input feeds: the primary's, or a further meter's (docs/architecture.md#several-meters). */
  private get store(): ReadingStore {
    return this.binding.store;
  }

  select(config: AppConfig): MeterSettings {
    return config.meter;
  }

  async start(): Promise<void> {
    this.running = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.applied = undefined;
    await this.disconnect();
    this.context.services.set(this.binding.service, { state: 'stopped' });
  }

  /** Opens the link on the first call; reopens it whenever a meter.* setting changed. */
  async reconcile({ slice }: OutputView<MeterSettings>): Promise<void> {
    if (!this.running || slice === this.applied) return;
    const previous = this.applied;
    this.applied = slice;
    // New custom scalers apply from the next reading on; only the other meter settings reopen the link.
    if (previous !== undefined && onlyScalersChanged(previous, slice)) return;
    if (previous !== undefined) {
      try {
        parseSource(slice.source);
      } catch (error) {
        // Not taken up: the next attempt (the runner's retry) fails the same way until it changes.
        this.applied = previous;
        throw error;
      }
      return this.restart(slice.source);
    }
    // An unusable source is a start-up error (exit 1); later API changes are validated before apply.
    this.source = parseSource(slice.source);
    await this.connect();
  }

  /**
   * A changed source: an unusable one rejects (the write answers 500 naming this output), as
   * does a first open that fails; the input keeps retrying that one with its own backoff
   * (docs/architecture.md#output-contract).
   */
  private async restart(sourceText: string): Promise<void> {
    this.source = parseSource(sourceText);
    this.logger.info(`meter settings changed, reopening ${sourceText}`);
    await this.disconnect();
    this.detection.forget();
    this.store.sourceChanged();
    this.store.setInterface(interfaceOfSource(sourceText));
    this.backoff.reset();
    const failure = await this.connect();
    if (failure !== undefined) throw new Error(failure);
  }

  /** Opens the link; answers why it could not (a retry is then scheduled), else undefined. */
  private async connect(): Promise<string | undefined> {
    if (!this.running || !this.source) return;
    const generation = this.generation;
    const meter = this.binding.settings();
    const options: DecoderOptions = meter.encryption_key ? { encryptionKey: meter.encryption_key } : {};
    const source = await this.resolveSource(this.source, options);
    if (!source || generation !== this.generation) return;
    let link: MeterLink;
    try {
      link = await createTransport(source, meter, this.context.clock);
    } catch (error) {
      this.store.sourceFailed('NOT CONNECTED');
      const why = `cannot open ${this.binding.settings().source}: ${(error as Error).message}`;
      this.scheduleReconnect(why);
      return why;
    }
    if (generation !== this.generation) return;
    this.decoder = link.delivers === 'bytes' ? this.createDecoder(source, options) : undefined;
    this.link = link;
    this.attach(link);
    try {
      await link.transport.open();
    } catch (error) {
      if (this.link !== link) return;
      this.link = undefined;
      link.transport.removeAllListeners();
      this.store.sourceFailed('NOT CONNECTED');
      const why = `cannot open ${link.transport.description}: ${(error as Error).message}`;
      this.scheduleReconnect(why);
      return why;
    }
    if (this.link !== link) {
      // Stopped or restarted while the transport was opening: it must not stay open unowned.
      link.transport.removeAllListeners();
      await link.transport.close();
      return;
    }
    this.validSinceOpen = false;
    this.logger.info(`opened ${link.transport.description}`);
    const { descriptionKey } = link.transport;
    this.context.services.set(this.binding.service, {
      state: 'open',
      source: link.transport.description,
      // The description's key beside it (docs/architecture.md#server-message-keys).
      ...(descriptionKey ? { source_key: descriptionKey.key, source_args: descriptionKey.args } : {}),
    });
    if (this.store.isStale()) {
      this.store.setStatus(this.decoder instanceof AutoDecoder ? 'RECOGNITION' : 'NO DATA');
    }
    this.armWatchdog();
  }

  private attach(link: MeterLink): void {
    if (link.delivers === 'bytes') {
      link.transport.on('data', (chunk) => this.onData(chunk));
      link.transport.on('close', (reason) => this.onClose(link, reason));
      return;
    }
    link.transport.on('raw', (chunk) => {
      this.armWatchdog();
      this.store.receiveBytes(chunk);
    });
    link.transport.on('reading', (reading) => {
      this.armWatchdog();
      this.accept(reading);
    });
    link.transport.on('reject', (error) => this.rejectFrame(error));
    link.transport.on('close', (reason) => this.onClose(link, reason));
  }

  /**
   * `serial:` with `protocol=auto`: the detected source once known. Until then the probe (up to
   * 30 s) runs in the background with status RECOGNITION, so start() does not wait for it; it
   * connects when a protocol is found and retries with backoff when none is.
   */
  private async resolveSource(
    source: MeterSource,
    options: DecoderOptions,
  ): Promise<MeterSource | undefined> {
    if (source.kind !== 'serial' || source.protocol !== 'auto') return source;
    const cached = this.detection.cached(source);
    if (cached) return cached;
    this.store.setStatus('RECOGNITION');
    void this.detect(source, options);
    return undefined;
  }

  private async detect(source: SerialSource, options: DecoderOptions): Promise<void> {
    const generation = this.generation;
    const outcome = await this.detection.resolve(source, options.encryptionKey);
    if (generation !== this.generation || !this.running) return;
    if (outcome.kind === 'found') {
      this.logger.info(`detected ${outcome.probe.meterProtocol}: meter.source ${outcome.probe.source}`);
      this.store.setInterface(interfaceOfSource(outcome.probe.source ?? ''));
      await this.connect();
      return;
    }
    this.store.sourceFailed(outcome.kind === 'absent' ? 'NOT CONNECTED' : 'NOT RECOGNIZED');
    this.scheduleReconnect(outcome.reason);
  }

  private createDecoder(source: MeterSource, options: DecoderOptions): MeterDecoder {
    const protocol = 'protocol' in source ? source.protocol : 'dsmr';
    if (protocol !== 'auto') return createDecoder(protocol, options);
    return new AutoDecoder(options, (found) => this.logger.info(`protocol detected: ${found}`));
  }

  private onData(chunk: Buffer): void {
    this.armWatchdog();
    this.store.receiveBytes(chunk);
    const decoder = this.decoder;
    if (!decoder) return;
    let results: DecodeResult[];
    try {
      results = decoder.push(chunk, this.context.now());
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

  private handleResults(results: readonly DecodeResult[]): void {
    for (const result of results) {
      if (result.ok) this.accept(result.reading);
      else this.rejectFrame(result.error);
    }
  }

  private accept(reading: Reading): void {
    this.backoff.reset();
    this.validSinceOpen = true;
    // After the parser, before the store (docs/architecture.md#meter-scalers).
    this.store.ingest(applyScalers(reading, this.binding.settings().scalers));
  }

  private rejectFrame(error: MeterDataError): void {
    this.store.reject(error.kind);
    this.showLastError(`${error.kind}: ${error.message}`);
    if (error.kind === 'encryption') {
      this.store.setStatus(this.binding.settings().encryption_key ? 'ENCRYPTION KEY' : 'KEY REQUIRED');
    }
    this.rejectionsLogged += 1;
    const level = this.rejectionsLogged <= 5 || this.rejectionsLogged % 100 === 0 ? 'warn' : 'debug';
    this.logger.log(
      level,
      `frame rejected (${error.kind}): ${error.message} [${this.rejectionsLogged} so far]`,
    );
  }

  /** `services.<meter>.error` in /api/v1/system: the latest rejection of any source, set when it changes. */
  private showLastError(text: string): void {
    const current = this.context.services.get(this.binding.service);
    if (!current || current.error === text) return;
    this.context.services.set(this.binding.service, { ...current, error: text });
  }

  /** The link closed: NOT CONNECTED, or NO DATA when the watchdog closed an open but silent link. */
  private onClose(link: MeterLink, reason?: Error, silent = false): void {
    if (this.link !== link) return;
    this.link = undefined;
    this.clearWatchdog();
    link.transport.removeAllListeners();
    // A detected serial setting that never produced a valid frame is probed again next time.
    if (!this.validSinceOpen) this.detection.forget();
    this.store.sourceFailed(silent ? 'NO DATA' : 'NOT CONNECTED');
    this.scheduleReconnect(`${link.transport.description} closed${reason ? `: ${reason.message}` : ''}`);
  }

  private scheduleReconnect(why: string): void {
    if (!this.running) return;
    const delay = this.backoff.next();
    this.logger.warn(`${why}; retrying in ${Math.round(delay / 100) / 10} s`);
    // The cause where the user looks (/api/v1/system services.meter, the dashboard's banner).
    this.context.services.set(this.binding.service, { state: 'retrying', error: why, retry_in_ms: delay });
    this.cancelReconnect = this.retryTimer(() => {
      this.cancelReconnect = undefined;
      void this.connect();
    }, delay);
  }

  private armWatchdog(): void {
    const silenceMs = this.binding.settings().timeout * 1000 * WATCHDOG_FACTOR;
    if (this.watchdog) {
      this.watchdog.refresh();
      return;
    }
    this.watchdog = this.context.clock.setTimeout(() => {
      this.watchdog = undefined;
      const link = this.link;
      if (!link) return;
      this.logger.warn(`no data from ${link.transport.description} for ${silenceMs / 1000} s, reopening`);
      void link.transport.close().then(() => this.onClose(link, new Error('no data (watchdog)'), true));
    }, silenceMs);
  }

  private clearWatchdog(): void {
    this.context.clock.clearTimeout(this.watchdog);
    this.watchdog = undefined;
  }

  private async disconnect(): Promise<void> {
    this.generation += 1;
    await this.detection.cancel();
    this.cancelReconnect?.();
    this.cancelReconnect = undefined;
    this.clearWatchdog();
    const link = this.link;
    this.link = undefined;
    if (link) {
      link.transport.removeAllListeners();
      await link.transport.close();
    }
    this.decoder = undefined;
  }
}

export function createMeterInput(context: AppContext, logger: Logger): MeterInput {
  return new MeterInput(context, logger);
}
