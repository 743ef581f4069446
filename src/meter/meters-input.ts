import type { AppConfig, MeterSettings } from '../config/types.js';
import type { AppContext } from '../context.js';
import { componentLogger, type Logger } from '../log.js';
import type { DeclaredOutput, OutputStatus, OutputView, StatusPort } from '../output.js';
import { isVirtualEntry, type MeterEntry, type PolledMeterEntry } from '../reading/meter-entries.js';
import type { MeterHandle } from '../reading/meter-registry.js';
import { ReadingStore } from '../reading/store.js';
import { VirtualMeter } from '../reading/virtual-meter.js';
import { MeterInput } from './meter-input.js';
import type { MeterFacts, MeterStatus } from './meter-facts.js';
import { interfaceOfSource } from './source.js';

const DEFAULT_TIMEOUT_S = 10;

/** The status facts of the further meters (docs/architecture.md#output-contract). */
export type MetersFacts = {
  /** Further meters running, and listed in `meters`. */
  running: number;
  configured: number;
  /** Each further meter's line by id: its input's state and facts (a virtual meter: `running`). */
  meters: Record<string, MeterStatus>;
};
export type MetersStatus = OutputStatus<MetersFacts>;

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
export class MetersInput implements DeclaredOutput<readonly MeterEntry[], MetersFacts> {
  readonly name = 'meters';
  readonly watches = ['meters'] as const;
  private readonly running = new Map<string, Running>();
  private started = false;
  private status: StatusPort<MetersFacts> | undefined;
  /** Each further meter's status line, reported inside this output's. */
  private readonly lines = new Map<string, MeterStatus>();
  private configured = 0;

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
  ) {}

  select(config: AppConfig): readonly MeterEntry[] {
    return config.meters;
  }

  /** `disabled` while `meters` lists none. */
  enabled(entries: readonly MeterEntry[]): boolean {
    return entries.length > 0;
  }

  async start(status: StatusPort<MetersFacts>): Promise<void> {
    this.status = status;
    this.started = true;
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const id of [...this.running.keys()].reverse()) await this.stopMeter(id);
  }

  /**
   * The list diffed by id against the meters running: a meter whose entry changed or vanished is
   * stopped, a new or changed one started (with the virtual meters that read a restarted one).
   * Rejects naming the meters that failed to start, which the runner's next attempt starts again.
   */
  async apply({ slice: entries }: OutputView<readonly MeterEntry[]>): Promise<MetersFacts> {
    if (!this.started) throw new Error('meters: not started');
    // Registry changes below reach the runner (`added`/`removed`), which must see this apply as
    // the one in progress: the first of them comes after the apply has handed its promise back.
    await Promise.resolve();
    this.configured = entries.length;
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
    for (const id of this.lines.keys()) if (!wanted.has(id)) this.lines.delete(id);
    // Polled meters first: a virtual meter added in the same change finds its terms registered.
    const order = [...entries].sort((a, b) => Number(isVirtualEntry(a)) - Number(isVirtualEntry(b)));
    const failed: string[] = [];
    for (const entry of order) {
      if (this.running.has(entry.id)) continue;
      try {
        await this.startMeter(entry);
      } catch (error) {
        const message = `meter ${entry.id} failed to start: ${(error as Error).message}`;
        this.lines.set(entry.id, { state: 'error', error: message });
        failed.push(message);
      }
    }
    if (failed.length > 0) {
      this.report();
      throw new Error(failed.join('; '));
    }
    // The live facts too: a line reported while a meter started must not hide the count.
    this.report();
    return this.facts();
  }

  private facts(): MetersFacts {
    return {
      running: this.running.size,
      configured: this.configured,
      meters: Object.fromEntries(this.lines),
    };
  }

  /** The further meters' lines changed (a link opened, closed, a frame was rejected). */
  private report(): void {
    this.status?.facts(this.facts());
  }

  /** The status port of one further meter's input: its line inside this output's. */
  private portOf(id: string): StatusPort<MeterFacts> {
    let trouble: string | undefined;
    const update = (change: (line: MeterStatus) => MeterStatus): void => {
      if (!this.running.has(id) && !this.lines.has(id)) return;
      this.lines.set(id, change(this.lines.get(id) ?? { state: 'starting' }));
      this.report();
    };
    return {
      facts: (facts) =>
        update((line) => {
          const next: Record<string, unknown> = { ...line };
          for (const [key, value] of Object.entries(facts)) {
            if (value === undefined) delete next[key];
            else next[key] = value;
          }
          return next as MeterStatus;
        }),
      trouble: (reason) => {
        trouble = reason;
        update((line) => {
          const { error: _error, ...rest } = line;
          return trouble === undefined
            ? { ...rest, state: 'running' }
            : { ...rest, state: 'retrying', error: trouble };
        });
      },
    };
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
    this.lines.set(entry.id, { state: 'starting' });
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
      { store, service: `meter:${entry.id}` },
    );
    await input.start(this.portOf(entry.id));
    try {
      await input.apply({ slice: settings });
    } catch (error) {
      await input.stop();
      store.close();
      throw error;
    }
    const line = this.lines.get(entry.id);
    if (line?.state === 'starting') this.lines.set(entry.id, { ...line, state: 'running' });
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
    this.lines.set(entry.id, { state: 'running' });
    return { entry, handle, stop: async () => virtual.stop() };
  }

  private async stopMeter(id: string): Promise<void> {
    const running = this.running.get(id);
    if (!running) return;
    this.running.delete(id);
    this.lines.delete(id);
    this.context.meters.remove(id);
    await running.stop();
    this.logger.info(`meter ${id} stopped`);
  }
}

export function createMetersInput(context: AppContext, logger: Logger): MetersInput {
  return new MetersInput(context, logger);
}
