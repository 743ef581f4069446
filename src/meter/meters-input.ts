import type { AppConfig, MeterSettings } from '../config/types.js';
import type { AppContext } from '../context.js';
import { componentLogger, type Logger } from '../log.js';
import type { Output, OutputView } from '../output.js';
import { isVirtualEntry, type MeterEntry, type PolledMeterEntry } from '../reading/meter-entries.js';
import type { MeterHandle } from '../reading/meter-registry.js';
import { ReadingStore } from '../reading/store.js';
import { VirtualMeter } from '../reading/virtual-meter.js';
import { MeterInput } from './meter-input.js';
import { interfaceOfSource } from './source.js';

const DEFAULT_TIMEOUT_S = 10;

/** A running further meter: its registry handle and what keeps it current. */
interface Running {
  entry: MeterEntry;
  handle: MeterHandle;
  stop(): Promise<void>;
}

/**
 * The further meters of `meters[]` (docs/architecture.md#several-meters): one reading store and
 * one meter input per polled meter, one VirtualMeter per virtual meter, all in the registry. A
 * change of the list restarts exactly the meters whose entry changed (and virtual meters that
 * read one of them); the others, and the primary, keep reading without a gap.
 */
export class MetersInput implements Output<readonly MeterEntry[]> {
  readonly name = 'meters';
  readonly watches = ['meters'] as const;
  private readonly running = new Map<string, Running>();
  private started = false;
  /** Reconciles run one after another, so two quick writes never interleave. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
  ) {}

  select(config: AppConfig): readonly MeterEntry[] {
    return config.meters;
  }

  async start(): Promise<void> {
    this.started = true;
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.queue.catch(noop);
    for (const id of [...this.running.keys()].reverse()) await this.stopMeter(id);
  }

  /**
   * Runs after the previous reconcile, whatever its outcome (a rejected one does not stop the
   * next); rejects naming the meters that failed to start, which the next attempt starts again.
   */
  reconcile({ slice }: OutputView<readonly MeterEntry[]>): Promise<void> {
    this.queue = this.queue.catch(noop).then(() => this.apply(slice));
    return this.queue;
  }

  private async apply(entries: readonly MeterEntry[]): Promise<void> {
    if (!this.started) return;
    const wanted = new Map(entries.map((entry) => [entry.id, entry]));
    const stale = new Set<string>();
    for (const [id, running] of this.running) {
      const next = wanted.get(id);
      if (!next || JSON.stringify(next) !== JSON.stringify(running.entry)) stale.add(id);
    }
    // A virtual meter reading a restarted meter follows it onto the new store.
    for (const [id, running] of this.running) {
      if (isVirtualEntry(running.entry) && running.handle.kind === 'virtual') {
        const terms = (running.handle as MeterHandle & { terms?: readonly string[] }).terms ?? [];
        if (terms.some((term) => stale.has(term))) stale.add(id);
      }
    }
    for (const id of stale) await this.stopMeter(id);
    // Polled meters first: a virtual meter added in the same change finds its terms registered.
    const order = [...entries].sort((a, b) => Number(isVirtualEntry(a)) - Number(isVirtualEntry(b)));
    const failed: string[] = [];
    for (const entry of order) {
      if (this.running.has(entry.id)) continue;
      try {
        await this.startMeter(entry);
      } catch (error) {
        const message = `meter ${entry.id} failed to start: ${(error as Error).message}`;
        this.context.services.set(`meter:${entry.id}`, { state: 'error', error: message });
        failed.push(message);
      }
    }
    this.report(entries.length, failed);
    if (failed.length > 0) throw new Error(failed.join('; '));
  }

  /** The output's own line (`meters`): how many further meters run; each meter has its `meter:<id>`. */
  private report(configured: number, failed: readonly string[]): void {
    const running = this.running.size;
    if (failed.length > 0)
      this.context.services.set('meters', { state: 'error', running, configured, error: failed.join('; ') });
    else if (configured > 0) this.context.services.set('meters', { state: 'running', running, configured });
    else this.context.services.delete('meters');
  }

  private async startMeter(entry: MeterEntry): Promise<void> {
    const running = isVirtualEntry(entry) ? this.startVirtual(entry) : await this.startPolled(entry);
    this.running.set(entry.id, running);
    this.context.meters.add(running.handle);
    this.logger.info(`meter ${entry.id} (${entry.name}, ${entry.role}) started`);
  }

  private async startPolled(entry: PolledMeterEntry): Promise<Running> {
    const timeout = entry.timeout ?? DEFAULT_TIMEOUT_S;
    const store = new ReadingStore({
      staleAfterMs: timeout * 1000,
      meterInterface: interfaceOfSource(entry.source),
      now: this.context.now,
      clock: this.context.clock,
    });
    store.onListenerFailure = this.context.store.onListenerFailure;
    const primary = this.context.config.config.meter;
    const settings: MeterSettings = {
      source: entry.source,
      conv_factor: 1,
      encryption_key: '',
      timeout,
      scalers: [],
      simulator: primary.simulator,
    };
    const input = new MeterInput(
      this.context,
      componentLogger(this.context.logger, `meter ${entry.id}`),
      undefined,
      { store, settings: () => settings, service: `meter:${entry.id}` },
    );
    await input.start();
    await input.reconcile({ slice: settings });
    const handle: MeterHandle = {
      id: entry.id,
      name: entry.name,
      role: entry.role,
      kind: 'polled',
      store,
      source: () => entry.source,
    };
    return {
      entry,
      handle,
      stop: async () => {
        await input.stop();
        store.close();
      },
    };
  }

  private startVirtual(entry: Extract<MeterEntry, { expression: string }>): Running {
    const virtual = new VirtualMeter(
      entry.expression,
      this.context.meters,
      this.context.now,
      this.context.clock,
    );
    const handle = Object.assign(
      {
        id: entry.id,
        name: entry.name,
        role: entry.role,
        kind: 'virtual' as const,
        store: virtual.store,
        expression: entry.expression,
        source: () => undefined,
      },
      { terms: virtual.termIds },
    );
    virtual.start();
    return { entry, handle, stop: async () => virtual.stop() };
  }

  private async stopMeter(id: string): Promise<void> {
    const running = this.running.get(id);
    if (!running) return;
    this.running.delete(id);
    this.context.meters.remove(id);
    this.context.services.set(`meter:${id}`, { state: 'stopped' });
    await running.stop();
    this.logger.info(`meter ${id} stopped`);
  }
}

export function createMetersInput(context: AppContext, logger: Logger): MetersInput {
  return new MetersInput(context, logger);
}

function noop(): void {}
