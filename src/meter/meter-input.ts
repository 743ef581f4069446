import { Backoff, RECONNECT_CAP_MS, clockRetryTimer, type RetryTimer } from '../backoff.js';
import type { Timer } from '../clock.js';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import type { ReadingStore } from '../reading/store.js';
import type { AppConfig, MeterSettings } from '../config/types.js';
import { sameSlice, type DeclaredOutput, type OutputView, type StatusPort } from '../output.js';
import { FramePath } from './meter-frames.js';
import { IGNORED_STATUS, type MeterBinding, type MeterFacts } from './meter-facts.js';
import { SerialDetection } from './probe/serial-detection.js';
import { onlyScalersChanged } from './scalers.js';
import type { SerialSource } from './transport/serial.js';
import { createTransport, type MeterLink } from './transport/factory.js';
import type { DecoderOptions } from './protocols.js';
import { interfaceOfSource, parseSource, type MeterSource } from './source.js';

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
export class MeterInput implements DeclaredOutput<MeterSettings, MeterFacts> {
  /** The primary's status line; a further meter's input runs inside `meters` (its label: `binding.service`). */
  readonly name = 'meter' as const;
  readonly required = true;
  readonly watches = ['meter'] as const;
  /** The meter settings the input runs (the link is open, opening or reopened with them). */
  private current: MeterSettings | undefined;
  private status: StatusPort<MeterFacts> = IGNORED_STATUS;
  private link: MeterLink | undefined;
  /** Decoder, scalers and store: what happens to what the link delivers. */
  private readonly frames: FramePath;
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
  /** The protocol probe runs in the background (`serial:` with `protocol=auto`). */
  private detecting = false;

  private readonly binding: MeterBinding;

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
    private readonly retryTimer: RetryTimer = clockRetryTimer(context.clock),
    binding?: MeterBinding,
  ) {
    this.detection = new SerialDetection(context.clock);
    this.binding = binding ?? { store: context.store, service: 'meter' };
    this.frames = new FramePath(this.binding.store, logger, () => context.now(), {
      settings: () => this.settings,
      status: () => this.status,
      valid: () => {
        this.backoff.reset();
        this.validSinceOpen = true;
      },
    });
  }

  /** The store this input feeds: the primary's, or a further meter's (docs/architecture.md#several-meters). */
  private get store(): ReadingStore {
    return this.binding.store;
  }

  select(config: AppConfig): MeterSettings {
    return config.meter;
  }

  async start(status: StatusPort<MeterFacts>): Promise<void> {
    this.status = status;
    this.running = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.current = undefined;
    await this.disconnect();
  }

  /**
   * The first apply opens the link: an unusable source rejects (a required part: start-up ends),
   * a link that does not open yet is reopened by the input itself (`retrying`), so a meter cable
   * plugged in after boot is found. A later apply with other settings reopens the link and
   * rejects when the new source is unusable or does not open (the write answers 500 naming this
   * output; the runner retries). New custom scalers alone apply from the next reading on.
   */
  async apply({ slice }: OutputView<MeterSettings>): Promise<void> {
    if (!this.running) throw new Error(`${this.binding.service}: not started`);
    const current = this.current;
    if (current === undefined) {
      this.source = parseSource(slice.source);
      this.current = slice;
      await this.connect(true);
      return;
    }
    let failure: string | undefined;
    if (sameSlice(current, slice)) {
      // The runner's retry of an apply that failed: open again, unless it is open or detecting.
      if (this.link || this.detecting) return;
      await this.disconnect();
      failure = await this.connect(false);
    } else if (onlyScalersChanged(current, slice)) {
      this.current = slice;
      return;
    } else {
      // Not taken up while unusable: the next attempt fails the same way until it changes.
      const source = parseSource(slice.source);
      this.current = slice;
      failure = await this.restart(source, slice.source);
    }
    if (failure !== undefined) throw new Error(failure);
  }

  /** A changed source: the old link closed, the store told, the new one opened once. */
  private async restart(source: MeterSource, sourceText: string): Promise<string | undefined> {
    this.logger.info(`meter settings changed, reopening ${sourceText}`);
    await this.disconnect();
    this.source = source;
    this.detection.forget();
    this.store.sourceChanged();
    this.store.setInterface(interfaceOfSource(sourceText));
    this.backoff.reset();
    this.frames.forgetLastError();
    this.status.trouble(undefined);
    this.status.facts({
      link: 'closed',
      source: undefined,
      source_key: undefined,
      source_args: undefined,
      last_error: undefined,
      retry_in_ms: undefined,
    });
    return this.connect(false);
  }

  /** The settings the input runs with (the primary's `meter.*`, a further meter's entry). */
  private get settings(): MeterSettings {
    return this.current!;
  }

  /**
   * Opens the link; answers why it could not, else undefined. With `selfRetry` the input
   * schedules the next attempt itself (`retrying`); without, the caller's apply rejects and the
   * runner retries.
   */
  private async connect(selfRetry: boolean): Promise<string | undefined> {
    if (!this.running || !this.source || !this.current) return;
    const generation = this.generation;
    const meter = this.settings;
    const options: DecoderOptions = meter.encryption_key ? { encryptionKey: meter.encryption_key } : {};
    const source = await this.resolveSource(this.source, options);
    if (!source || generation !== this.generation) return;
    let link: MeterLink;
    try {
      link = await createTransport(source, meter, this.context.clock);
    } catch (error) {
      this.store.sourceFailed('NOT CONNECTED');
      const why = `cannot open ${meter.source}: ${(error as Error).message}`;
      if (selfRetry) this.scheduleReconnect(why);
      return why;
    }
    if (generation !== this.generation) return;
    if (link.delivers === 'bytes') this.frames.useDecoder(source, options);
    else this.frames.dropDecoder();
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
      if (selfRetry) this.scheduleReconnect(why);
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
    this.frames.forgetLastError();
    this.status.facts({
      link: 'open',
      source: link.transport.description,
      // The description's key beside it (docs/architecture.md#server-message-keys).
      source_key: descriptionKey?.key,
      source_args: descriptionKey?.args,
      last_error: undefined,
      retry_in_ms: undefined,
    });
    this.status.trouble(undefined);
    if (this.store.isStale()) {
      this.store.setStatus(this.frames.recognising ? 'RECOGNITION' : 'NO DATA');
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
      this.frames.accept(reading);
    });
    link.transport.on('reject', (error) => this.frames.reject(error));
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
    this.status.facts({ link: 'detecting' });
    void this.detect(source, options);
    return undefined;
  }

  private async detect(source: SerialSource, options: DecoderOptions): Promise<void> {
    const generation = this.generation;
    this.detecting = true;
    let outcome: Awaited<ReturnType<SerialDetection['resolve']>>;
    try {
      outcome = await this.detection.resolve(source, options.encryptionKey);
    } finally {
      if (generation === this.generation) this.detecting = false;
    }
    if (generation !== this.generation || !this.running) return;
    if (outcome.kind === 'found') {
      this.logger.info(`detected ${outcome.probe.meterProtocol}: meter.source ${outcome.probe.source}`);
      this.store.setInterface(interfaceOfSource(outcome.probe.source ?? ''));
      await this.connect(true);
      return;
    }
    this.store.sourceFailed(outcome.kind === 'absent' ? 'NOT CONNECTED' : 'NOT RECOGNIZED');
    this.scheduleReconnect(outcome.reason);
  }

  private onData(chunk: Buffer): void {
    this.armWatchdog();
    this.store.receiveBytes(chunk);
    this.frames.bytes(chunk);
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
    this.status.facts({ link: 'closed', retry_in_ms: delay });
    this.status.trouble(why);
    this.cancelReconnect?.();
    this.cancelReconnect = this.retryTimer(() => {
      this.cancelReconnect = undefined;
      void this.connect(true);
    }, delay);
  }

  private armWatchdog(): void {
    const silenceMs = this.settings.timeout * 1000 * WATCHDOG_FACTOR;
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
    this.detecting = false;
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
    this.frames.dropDecoder();
  }
}

export function createMeterInput(context: AppContext, logger: Logger): MeterInput {
  return new MeterInput(context, logger);
}
