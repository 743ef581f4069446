import { meterView } from '../reading/meter-view.js';
import { join } from 'node:path';
import type { AppConfig } from '../config/types.js';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import type { DeclaredOutput, OutputStatus, OutputView, StatusPort } from '../output.js';
import type { MeterHandle } from '../reading/meter-registry.js';
import type { Reading } from '../reading/reading.js';
import { PushClient, type LivePower, type PushStatus, type QuarterSource } from './push-client.js';
import { peakQuarterMeter } from '../peak/quarter-meter.js';
import type { PushSecrets, PushTargetSettings } from './settings.js';

interface PushSlice {
  targets: PushTargetSettings[];
  secrets: PushSecrets;
}

/** The status facts of the fleet push: the number of running targets. */
export type PushFacts = { targets: number };
export type PushOutputStatus = OutputStatus<PushFacts>;

/**
 * The fleet push (services.push, docs/architecture.md#push): one PushClient per enabled target,
 * each with its own cursor file under `<state>/push/`. A change of a target's settings restarts that
 * target alone; its cursor stays (same id, same receiver), so nothing is sent twice or skipped.
 * Its status line is `retrying` while a target is in error or clock_unsynced (each target retries
 * on its own), `disabled` without an enabled target.
 */
export class PushOutput implements DeclaredOutput<PushSlice, PushFacts> {
  readonly name = 'push';
  readonly watches = ['services.push'] as const;
  private readonly clients = new Map<string, { key: string; client: PushClient }>();
  private readonly listeners = new Set<() => void>();
  private port: StatusPort<PushFacts> | undefined;

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
    private readonly source: QuarterSource,
  ) {}

  select(config: AppConfig): PushSlice {
    return { targets: config.services.push.targets, secrets: config.services.push.secrets };
  }

  enabled(slice: PushSlice): boolean {
    return slice.targets.some((target) => target.enabled !== false);
  }

  async start(status: StatusPort<PushFacts>): Promise<void> {
    this.port = status;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.clients.values()].map((entry) => entry.client.stop()));
    this.clients.clear();
    this.report();
    this.port = undefined;
  }

  async apply({ slice }: OutputView<PushSlice>): Promise<PushFacts> {
    const wanted = new Map(
      slice.targets
        .filter((target) => target.enabled !== false)
        .map((target) => [
          target.id,
          { target, key: JSON.stringify([target, slice.secrets[target.id] ?? {}]) },
        ]),
    );
    for (const [id, entry] of this.clients) {
      if (wanted.get(id)?.key === entry.key) continue;
      await entry.client.stop();
      this.clients.delete(id);
    }
    for (const [id, { target, key }] of wanted) {
      if (this.clients.has(id)) continue;
      const client = new PushClient({
        settings: target,
        secrets: slice.secrets[id],
        source: this.source,
        directory: join(this.context.config.config.paths.state, 'push'),
        gateway: this.context.system.id,
        clock: this.context.clock,
        now: this.context.now,
        logger: this.logger,
        refusals: this.context.refusals,
        prices: this.context.prices,
        peakMeter: () => peakQuarterMeter(this.context.config.config),
        live: this.livePower,
        onState: () => this.reportState(),
      });
      client.load();
      client.start();
      this.clients.set(id, { key, client });
    }
    this.report();
    return { targets: this.clients.size };
  }

  /**
   * The readings' signed active power of every meter (power_1s), subscribed while a target wants
   * it. It follows the meter registry (docs/architecture.md#several-meters): a meter added later is
   * fed, an edited one (a new handle with its own store) is followed on its new store and role, a
   * removed one stops; a meter the registry does not hold has no samples, never another meter's.
   */
  private readonly livePower: LivePower = {
    subscribe: (listener) => {
      const registry = this.context.meters;
      const followed = new Map<string, { meter: MeterHandle; off: () => void }>();
      const follow = (meter: MeterHandle): void => {
        const onReading = (reading: Reading): void => {
          const watts = signedWatts(reading);
          if (watts === undefined) return;
          listener({ meter: meter.id, role: meter.role, at: reading.receivedAt, watts });
        };
        meter.store.subscribe('push', 'reading', onReading);
        followed.set(meter.id, { meter, off: () => meter.store.unsubscribe('reading', onReading) });
      };
      const sync = (): void => {
        for (const [id, entry] of followed) {
          if (registry.get(id) === entry.meter) continue;
          entry.off();
          followed.delete(id);
        }
        for (const meter of registry.list()) if (!followed.has(meter.id)) follow(meter);
      };
      registry.subscribe('push', 'added', sync);
      registry.subscribe('push', 'removed', sync);
      sync();
      return () => {
        registry.unsubscribe('added', sync);
        registry.unsubscribe('removed', sync);
        for (const entry of followed.values()) entry.off();
        followed.clear();
      };
    },
  };

  /** Calls `listener` after the running targets changed (started, stopped, restarted); returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every running target's status, in settings order. */
  status(): PushStatus[] {
    return [...this.clients.values()].map((entry) => entry.client.status());
  }

  private report(): void {
    for (const listener of this.listeners) listener();
    this.reportState();
  }

  /**
   * Trouble of the push in /api/v1/system: a target in error or clock_unsynced (it retries on its
   * own), reported when a target's state changes, not only when the targets do.
   */
  private reportState(): void {
    const troubled = [...this.clients.values()]
      .map((entry) => entry.client.status())
      .filter((status) => status.state === 'error' || status.state === 'clock_unsynced');
    this.port?.trouble(
      troubled.length === 0
        ? undefined
        : troubled
            .map(
              (status) => `${status.id} ${status.state}${status.last_error ? `: ${status.last_error}` : ''}`,
            )
            .join('; '),
    );
  }
}

/** A reading's signed active power in W (import positive), by the meter view's one rule. */
function signedWatts(reading: Reading): number | undefined {
  const watts = meterView(reading).total.w;
  return watts !== null && Number.isFinite(watts) ? Math.round(watts * 1e3) / 1e3 : undefined;
}
