import type { AppConfig } from './config/types.js';
import type { AppContext } from './context.js';
import type { Service } from './service.js';
import type { ServiceStatus } from './context.js';
import { Backoff, RECONNECT_CAP_MS, type RetryTimer } from './backoff.js';
import type { Clock } from './clock.js';
import type { MeterHandle, MeterRegistry } from './reading/meter-registry.js';
import type { OutputName, OutputState } from './contracts/outputs.js';

/**
 * Dot path of a node of the configuration tree: a section (`mqtt`), a group (`mqtt.discovery`) or
 * a leaf (`mqtt.url`). Arrays (the custom Modbus layout) are leaves.
 */
export type ConfigPath = NodePaths<AppConfig>;

type NodePaths<T> = T extends readonly unknown[]
  ? never
  : T extends object
    ? { [K in keyof T & string]: K | `${K}.${NodePaths<T[K]>}` }[keyof T & string]
    : never;

/** Why a licensed output is off whatever its settings say. */
export type Blocked = 'license FREE';

/** What `apply` gets: the output's slice of the configuration and the license verdict. */
export interface OutputView<Slice> {
  slice: Slice;
  /** Set while the output needs a license the device does not have: the output must be off. */
  blocked?: Blocked;
}

/**
 * The state of an output as the runner writes it (docs/architecture.md#output-contract), the same
 * six words for every output:
 * - `starting`: started, its first apply has not ended yet;
 * - `running`: runs as configured;
 * - `retrying`: its last apply failed (or it lost what it serves) and the runner or the output
 *   tries again: `error` says why, `retry_in_ms` when;
 * - `error`: it failed and nothing tries again (a required part whose start failed);
 * - `disabled`: its settings switch it off;
 * - `blocked`: its settings ask for it, the license does not allow it.
 */
export type { OutputName, OutputState } from './contracts/outputs.js';

/** An output's status line: its state, the runner's failure fields and the facts the output reported. */
export type OutputStatus<Facts extends object = Record<never, never>> = {
  state: OutputState;
  /** Why it is `retrying` or in `error`. */
  error?: string;
  /** When the runner tries again (`retrying` after a failed apply). */
  retry_in_ms?: number;
} & Partial<Facts>;

/**
 * A meter an output's settings name, resolved by the runner (docs/architecture.md#output-contract):
 * `handle` is the registered meter of that id now, `undefined` while none runs under it (a state
 * the output shows, never a reason to read another meter). A meter restarted with new settings is
 * a new handle, so the slice that holds it differs and the output is applied again.
 */
export interface MeterRef {
  readonly id: string;
  readonly handle: MeterHandle | undefined;
}

/** What `select` resolves meter ids with. */
export interface MeterLookup {
  ref(id: string): MeterRef;
  /** Every registered meter, the primary first (outputs that serve all of them). */
  all(): readonly MeterHandle[];
}

/** The registry seen by `select`. */
export function meterLookup(registry: MeterRegistry): MeterLookup {
  return {
    ref: (id) => ({ id, handle: registry.get(id) }),
    all: () => registry.list(),
  };
}

/**
 * What a running output tells the runner between applies: its live facts (counters, the peer it
 * serves) and trouble it retries on its own (a broker that went away). The runner is the one
 * writer of the status line; the output only reports.
 */
export interface StatusPort<Facts extends object> {
  /** Merged into the facts of the status line; a field given as `undefined` is removed. */
  facts(update: Partial<Facts>): void;
  /** `retrying` with `reason` while the output retries by itself; `undefined` once it serves again. */
  trouble(reason: string | undefined): void;
}

/**
 * An output declared to the runner (docs/architecture.md#output-contract): the configuration it
 * watches, the slice it runs on, and how it applies a new slice. The runner alone subscribes to
 * the configuration and to the meter registry, recomputes the slice, compares it with the last one
 * applied (`sameSlice`) and calls `apply` only on a real change, one at a time; it retries a failed
 * start or apply with capped backoff and writes the status line.
 *
 * `apply(next, previous)` brings the output from `previous` (the last view applied successfully,
 * `undefined` at the first) to `next`, and resolves to the facts of the status line (the port it
 * listens on, the meter it serves). It rejects whenever the output does not run as `next` asks: a
 * failure it swallows is a defect. After a rejection the runner calls it again with the same
 * `previous`, so an apply that failed half way must leave what it opened closed.
 */
export interface DeclaredOutput<
  Slice,
  Facts extends object = Record<never, never>,
  Name extends string = OutputName,
> {
  /**
   * Its status line's key: one of the declared list (src/contracts/outputs.ts) for every output of
   * the daemon; a test's own output may take any name (`Name` = string).
   */
  readonly name: Name;
  readonly required?: boolean;
  readonly watches: readonly ConfigPath[];
  /** 'PLUS': runs only with license PLUS or PRO; under FREE it is applied as blocked. */
  readonly license?: 'PLUS';
  select(config: AppConfig, meters: MeterLookup): Slice;
  /** Whether the slice asks the output to run (`disabled` when not); absent: it always runs. */
  enabled?(slice: Slice): boolean;
  /** Lifecycle before the first apply (subscriptions, timers); `status` stays valid until `stop`. */
  start(status: StatusPort<Facts>): Promise<void>;
  apply(
    next: OutputView<Slice>,
    previous: OutputView<Slice> | undefined,
  ): Facts | void | Promise<Facts | void>;
  /** Releases every socket, timer and subscription. */
  stop(): Promise<void>;
}

/**
 * Whether two slices are the same (docs/architecture.md#output-contract): plain objects and arrays
 * by their contents, a `MeterRef` by its id and handle (the same registered meter, not just the
 * same id), anything else (a class instance, a function) by identity.
 */
export function sameSlice(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => sameSlice(item, b[index]));
  }
  if (!isPlain(a) || !isPlain(b)) return false;
  const keysA = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const keysB = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  if (keysA.length !== keysB.length) return false;
  const recordA = a as Record<string, unknown>;
  const recordB = b as Record<string, unknown>;
  return keysA.every((key) => Object.hasOwn(recordB, key) && sameSlice(recordA[key], recordB[key]));
}

/** A literal object (a MeterRef is one: its handle is compared by identity below it). */
function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Whether a changed leaf lies at or under a watched node. */
export function watchesPath(watches: readonly string[], changed: string): boolean {
  return watches.some((node) => changed === node || changed.startsWith(`${node}.`));
}

/**
 * Runs applies of one output one at a time (docs/architecture.md#output-contract): a request
 * made while one runs is served by the next run, which reads the configuration when it starts, so
 * the latest settings win and requests that arrive together share one run. Never two at once: an
 * output that awaits inside `apply` (node-cron, a socket) cannot interleave with itself.
 */
export class ReconcileQueue {
  private active: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  /** `run` answers a promise only when the apply has work left after it returns. */
  constructor(private readonly run: () => void | Promise<void>) {}

  /** Resolves when a run that started after this call has finished; rejects when that run failed. */
  request(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.active) return this.begin();
    this.queued = this.active.then(noop, noop).then(() => {
      this.queued = undefined;
      return this.begin();
    });
    return this.queued;
  }

  /** Waits for the runs in progress or queued, whatever their outcome. */
  async idle(): Promise<void> {
    while (this.active || this.queued) await (this.queued ?? this.active)!.then(noop, noop);
  }

  /**
   * Starts a run. It counts as active from before `run` is called, so a request made while `run`
   * is still executing synchronously (an apply that adds a meter to the registry, whose listeners
   * ask for another run) is queued behind it, never started beside it. A synchronous run is over
   * when it returns.
   */
  private begin(): Promise<void> {
    let settle!: () => void;
    const current = new Promise<void>((resolve) => (settle = resolve));
    this.active = current;
    const done = (): void => {
      if (this.active === current) this.active = undefined;
      settle();
    };
    let answer: void | Promise<void>;
    try {
      answer = this.run();
    } catch (error) {
      done();
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (!(answer instanceof Promise)) {
      done();
      return Promise.resolve();
    }
    return answer.finally(done);
  }
}

/**
 * Runs an output as a service of the daemon (docs/architecture.md#output-contract); see
 * `runDeclared` for what the runner does.
 */
export function runOutput<
  Slice,
  Facts extends object = Record<never, never>,
  Name extends string = OutputName,
>(ctx: AppContext, output: DeclaredOutput<Slice, Facts, Name>, options: RunOptions = {}): Service {
  return runDeclared(ctx, output, options);
}

/**
 * Runs a declared output as a service of the daemon (docs/architecture.md#output-contract). The
 * runner alone:
 * - subscribes once to the configuration (the nodes the output watches, and `license.type` for a
 *   licensed output) and to the meter registry;
 * - recomputes the output's view and calls `apply` only when it differs from the last view applied
 *   (`sameSlice`), one apply at a time (ReconcileQueue), the latest settings winning;
 * - retries a failed start or apply with capped exponential backoff on the context's clock (1 s
 *   doubling to 30 s), at once on a settings change that touches the output;
 * - writes the output's status line under its name: `OutputStatus` from the apply's facts, the
 *   facts and trouble the output reports through its `StatusPort`, and the failure fields.
 * A settings change answers (through the config store's `settled`) with the apply's promise, so a
 * write learns which outputs did not take it up. Only a required output's failed start is passed
 * on (start-up ends, exit 1).
 */
function runDeclared<Slice, Facts extends object, Name extends string>(
  ctx: AppContext,
  output: DeclaredOutput<Slice, Facts, Name>,
  options: RunOptions,
): Service {
  const watches: readonly string[] = output.license ? [...output.watches, 'license.type'] : output.watches;
  const backoff = options.backoff ?? new Backoff(1000, RECONNECT_CAP_MS);
  const timer = options.retryTimer ?? unrefRetryTimer(ctx.clock);
  const meters = meterLookup(ctx.meters);
  let cancelRetry: (() => void) | undefined;
  let lastDelay = 0;
  let outputStarted = false;
  let running = false;
  let applied: OutputView<Slice> | undefined;
  let appliedFacts: Partial<Facts> = {};
  let liveFacts: Record<string, unknown> = {};
  let trouble: string | undefined;
  let failure: { reason: string; final: boolean } | undefined;
  let lastReason: string | undefined;

  const currentView = (): OutputView<Slice> => {
    const view: OutputView<Slice> = { slice: output.select(ctx.config.config, meters) };
    if (output.license === 'PLUS' && ctx.config.config.license.type === 'FREE') view.blocked = 'license FREE';
    return view;
  };
  const stateOf = (): OutputState => {
    if (failure) return failure.final ? 'error' : 'retrying';
    if (!applied) return 'starting';
    if (applied.blocked) return 'blocked';
    if (output.enabled && !output.enabled(applied.slice)) return 'disabled';
    return trouble === undefined ? 'running' : 'retrying';
  };
  const publish = (): void => {
    const status: Record<string, unknown> = { state: stateOf(), ...appliedFacts, ...liveFacts };
    const reason = failure?.reason ?? trouble;
    if (reason !== undefined) status.error = reason;
    if (failure && !failure.final && cancelRetry) status.retry_in_ms = lastDelay;
    ctx.services.set(output.name, status as ServiceStatus);
  };
  const port: StatusPort<Facts> = {
    facts(update) {
      const merged: Record<string, unknown> = { ...liveFacts };
      for (const [key, value] of Object.entries(update)) {
        if (value === undefined) delete merged[key];
        else merged[key] = value;
      }
      liveFacts = merged;
      publish();
    },
    trouble(reason) {
      if (trouble === reason) return;
      trouble = reason;
      publish();
    },
  };
  const scheduleRetry = (): void => {
    cancelRetry?.();
    lastDelay = backoff.next();
    cancelRetry = timer(() => {
      cancelRetry = undefined;
      // The outcome is recorded by `failed` / `succeeded`; nobody waits for a retry.
      if (running) queue.request().catch(noop);
    }, lastDelay);
  };
  const failed = (error: unknown): never => {
    const reason = error instanceof Error ? error.message : String(error);
    if (running) scheduleRetry();
    // Each new reason once at error; the same one again (a retry) only at debug.
    ctx.logger.log(
      lastReason === reason ? 'debug' : 'error',
      `${output.name}: ${reason}${cancelRetry ? `; retrying in ${lastDelay / 1000} s` : ''}`,
    );
    lastReason = reason;
    failure = { reason, final: !running };
    publish();
    throw error;
  };
  const succeeded = (next: OutputView<Slice>, facts: Facts | void): void => {
    backoff.reset();
    cancelRetry?.();
    cancelRetry = undefined;
    if (failure) ctx.logger.info(`${output.name}: running again`);
    failure = undefined;
    lastReason = undefined;
    applied = next;
    appliedFacts = facts ?? {};
    // The newest value of a fact wins: one the apply returned replaces what was reported before it.
    liveFacts = Object.fromEntries(
      Object.entries(liveFacts).filter(([key]) => !Object.hasOwn(appliedFacts, key)),
    );
    publish();
  };
  const applyNow = (): void | Promise<void> => {
    let next: OutputView<Slice>;
    let answer: Facts | void | Promise<Facts | void>;
    try {
      next = currentView();
      // Nothing to do: the view is the one applied, and no failure waits for another attempt.
      if (applied && !failure && sameSlice(next, applied)) return;
      answer = output.apply(next, applied);
    } catch (error) {
      return failed(error);
    }
    if (answer instanceof Promise) return answer.then((facts) => succeeded(next, facts), failed);
    succeeded(next, answer);
  };
  const queue = new ReconcileQueue(() => {
    if (outputStarted) return applyNow();
    return output.start(port).then(() => {
      outputStarted = true;
      return applyNow();
    }, failed);
  });
  // A change of a watched node, or a retry while failing: an apply when the view really changed.
  const onChange = (paths: readonly string[]): Promise<void> | undefined => {
    if (!paths.some((path) => watchesPath(watches, path))) return undefined;
    if (failure || !applied) return queue.request();
    return sameSlice(currentView(), applied) ? undefined : queue.request();
  };
  // A meter came, went or restarted: outputs whose slice holds it apply the new handle. A failing
  // output tries again at once (the meter it waited for may have come), as on a settings change.
  const onRegistry = (): void => {
    if (!running || !outputStarted) return;
    if (failure || (applied && !sameSlice(currentView(), applied))) queue.request().catch(noop);
  };
  return {
    name: output.name,
    required: output.required,
    async start() {
      running = true;
      publish();
      ctx.config.subscribe(output.name, 'change', onChange);
      ctx.meters.subscribe(output.name, 'added', onRegistry);
      ctx.meters.subscribe(output.name, 'removed', onRegistry);
      try {
        await queue.request();
      } catch (error) {
        // A required part that cannot run ends the start-up (docs/architecture.md#output-contract).
        if (!output.required) return;
        running = false;
        cancelRetry?.();
        cancelRetry = undefined;
        unsubscribe();
        if (failure) failure = { ...failure, final: true };
        publish();
        throw error;
      }
    },
    async stop() {
      if (running) unsubscribe();
      running = false;
      cancelRetry?.();
      cancelRetry = undefined;
      await queue.idle();
      if (outputStarted) await output.stop();
      outputStarted = false;
    },
  };
  function unsubscribe(): void {
    ctx.config.unsubscribe('change', onChange);
    ctx.meters.off('added', onRegistry);
    ctx.meters.off('removed', onRegistry);
  }
}

/** What a test replaces in the runner: the backoff and the timer its retries wait on. */
export interface RunOptions {
  backoff?: Backoff;
  retryTimer?: RetryTimer;
}

/** Retries on `clock` that do not keep the process alive alone (a stopped daemon exits). */
function unrefRetryTimer(clock: Clock): RetryTimer {
  return (attempt, delayMs) => {
    const timer = clock.setTimeout(attempt, delayMs);
    timer.unref();
    return () => clock.clearTimeout(timer);
  };
}

function noop(): void {}
