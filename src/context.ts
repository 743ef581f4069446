import { randomUUID } from 'node:crypto';
import { Refusals } from './refusals.js';
import { EventEmitter } from 'node:events';
import { systemClock, withNow, type Clock } from './clock.js';
import { ConfigStore, type LoadOptions } from './config/config-store.js';
import { createLogger, type Logger } from './log.js';
import type { OutputState } from './contracts/outputs.js';
import type { SystemFacts } from './reading/meter-state.js';
import type { MeterInterface } from './reading/reading.js';
import { ReadingStore } from './reading/store.js';
import { noPrices, type PriceSignal } from './price-signal.js';
import { MeterRegistry } from './reading/meter-registry.js';
import type { TemplateInput } from './reading/template-variables.js';
import { readSystemId, resolveSystemId } from './system-id.js';
import { VERSION } from './version.js';

/** Status line of one service as /api/v1/system shows it (`services` of the system JSON). */
export interface ServiceStatus {
  /** One of the six states every status line has (docs/architecture.md#output-contract). */
  state: OutputState;
  /** Last error message, when there was one. */
  error?: string;
  [key: string]: unknown;
}

/**
 * Registry of service states: each service reports its own state here; /api/v1/system reads them
 * and services that depend on another's state (mDNS announces Modbus while it runs) listen.
 */
export class ServiceStates extends EventEmitter<{ change: [name: string, status: ServiceStatus] }> {
  private readonly states = new Map<string, ServiceStatus>();
  /** Per output: how often one of its event listeners threw (GuardedEmitter). */
  private readonly failures = new Map<string, number>();

  constructor() {
    super();
    this.setMaxListeners(0);
  }

  set(name: string, status: ServiceStatus): void {
    this.states.set(name, status);
    this.emit('change', name, status);
  }

  get(name: string): ServiceStatus | undefined {
    return this.states.get(name);
  }

  /**
   * Changes some fields of a record and keeps the others, so one writer never wipes another's
   * fields. A field given as undefined is removed.
   */
  merge(name: string, fields: Partial<ServiceStatus>): void {
    const merged: Record<string, unknown> = { ...this.states.get(name) };
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) delete merged[key];
      else merged[key] = value;
    }
    this.set(name, { state: 'running', ...merged } as ServiceStatus);
  }

  countFailure(name: string): void {
    this.failures.set(name, (this.failures.get(name) ?? 0) + 1);
  }

  snapshot(): Record<string, ServiceStatus> {
    const view: Record<string, ServiceStatus> = Object.fromEntries(this.states);
    for (const [name, count] of this.failures) {
      view[name] = { ...(view[name] ?? { state: 'running' }), listener_errors: count };
    }
    return view;
  }
}

/**
 * Everything a component may depend on, passed in explicitly: there are no global singletons
 * (docs/architecture.md#data-flow).
 * Outputs declare the configuration they run on (src/output.ts) and get its changes through
 * `reconcile`; built by `createAppContext`.
 */
export interface AppContext {
  config: ConfigStore;
  store: ReadingStore;
  /** Every meter by id: the primary (`main`, whose store is `store`) and `meters[]` (docs/architecture.md#several-meters). */
  meters: MeterRegistry;
  logger: Logger;
  system: SystemFacts;
  services: ServiceStates;
  /** Wall clock, injectable for tests; the same as `clock.now`. */
  now: () => number;
  /** Time and timers of every module (docs/architecture.md#clock); a test gives a virtual one. */
  clock: Clock;
  /** Asks the daemon to restart (reboot endpoint, firmware switch): flushes, exits for systemd. */
  requestRestart: (reason: string) => void;
  /** The quarter-hour price series (docs/architecture.md#prices); `noPrices` until a source is set. */
  prices: PriceSignal;
  /** Hostile input refused at the edge, by reason (docs/architecture.md#hostile-input). */
  refusals: Refusals;
}

/** What a caller may replace when building a context; everything else comes from the config. */
export interface AppContextOptions extends LoadOptions {
  /** An already loaded config store; otherwise one is loaded from configFile, stateDir and env. */
  config?: ConfigStore;
  /** Replaces the console logger at config.log.level (tests capture lines, benches go quiet). */
  logger?: Logger;
  /** Wall clock for the context and the reading store (tests move it without waiting). */
  now?: () => number;
  /** Timers and wall clock (docs/architecture.md#clock); `now`, when given too, replaces its wall clock. */
  clock?: Clock;
  /** Interface the reading store reports (the daemon derives it from meter.source). */
  meterInterface?: MeterInterface;
  /** Staleness of a reading; meter.timeout when absent. */
  staleAfterMs?: number;
  /** Facts of this run; the id defaults to the stored system id, the model to device.model. */
  system?: Partial<SystemFacts>;
  /** A registry shared with another context (a second recorder standing in after a restart). */
  services?: ServiceStates;
  requestRestart?: (reason: string) => void;
  /** The price series (the daemon's price store; tests give a fixed series). */
  prices?: PriceSignal;
}

/**
 * The daemon's wall clock (docs/architecture.md#test-clock-offset): `Date.now`, shifted by the
 * seconds in `MG_TEST_CLOCK_OFFSET_S` when that variable is set, read once at start. Test-only:
 * a restart test moves a real daemon process 40 s ahead instead of waiting 40 s. The name is not
 * a METER_GATEWAY_* one: those are config keys, and an unknown one is refused at start.
 */
export const CLOCK_OFFSET_VARIABLE = 'MG_TEST_CLOCK_OFFSET_S';

export function daemonClock(env: NodeJS.ProcessEnv = process.env, clock: Clock = systemClock): () => number {
  const seconds = Number(env[CLOCK_OFFSET_VARIABLE] ?? '0');
  if (!Number.isFinite(seconds) || seconds === 0) return clock.now;
  const offset = seconds * 1000;
  return () => clock.now() + offset;
}

/**
 * The one place an AppContext is put together, for the daemon, the tests and the benchmarks:
 * config store, reading store, logger, system facts, service states, clock and restart hook.
 */
export function createAppContext(options: AppContextOptions = {}): AppContext {
  const config = options.config ?? ConfigStore.load(options);
  const base = options.clock ?? systemClock;
  const clock = options.now ? withNow(base, options.now) : base;
  const now = clock.now;
  const store = new ReadingStore({
    staleAfterMs: options.staleAfterMs ?? config.config.meter.timeout * 1000,
    meterInterface: options.meterInterface ?? 'SIMULATOR',
    now,
    clock,
  });
  return {
    config,
    store,
    meters: new MeterRegistry({
      id: 'main',
      name: 'Main meter',
      nameKey: 'meters.main_name',
      role: 'grid',
      kind: 'primary',
      store,
      source: () => config.config.meter.source,
    }),
    logger: options.logger ?? createLogger(config.config.log.level, process.env, clock),
    system: {
      id: options.system?.id ?? systemIdOf(config),
      model: options.system?.model ?? config.config.device.model,
      firmware: options.system?.firmware ?? VERSION,
      bootId: options.system?.bootId ?? randomUUID(),
      bootTime: options.system?.bootTime ?? now(),
    },
    services: options.services ?? new ServiceStates(),
    refusals: new Refusals(),
    now,
    clock,
    requestRestart: options.requestRestart ?? (() => undefined),
    prices: options.prices ?? noPrices,
  };
}

/**
 * The system id (system-id.ts). A state directory that cannot be written gets the hardware-derived
 * id for this run; the daemon's start() then fails on that directory with its own error.
 */
function systemIdOf(config: ConfigStore): string {
  try {
    config.stateDirectory.ensure();
    return resolveSystemId(config.config.device.id, config.config.paths.state);
  } catch {
    return config.config.device.id || readSystemId();
  }
}

/**
 * The MQTT template variables' input as this context knows it now: the latest reading, the meter,
 * the gateway's facts and settings, and the Wi-Fi facts the Wi-Fi service last reported (or
 * `wifi`, when the caller asked the backend itself). One source for the MQTT template, the
 * actions' substitution and /api/v1/variables (docs/architecture.md#mqtt-template).
 */
export function templateInputOf(
  ctx: AppContext,
  wifi?: Readonly<Record<string, string | number>>,
): TemplateInput {
  const config = ctx.config.config;
  // The link facts the network output refreshed (its line's `wifi.info`, docs/architecture.md#wi-fi-and-ethernet).
  const reported = (
    ctx.services.get('network')?.wifi as { info?: Record<string, string | number> } | undefined
  )?.info;
  return {
    reading: ctx.store.latest,
    meter: ctx.store.meter,
    system: ctx.system,
    systemName: config.system.name,
    convFactor: config.meter.conv_factor,
    wifi: wifi ?? reported ?? {},
    now: ctx.now(),
  };
}
