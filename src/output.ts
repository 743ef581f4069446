import type { AppConfig } from './config/types.js';
import type { AppContext } from './context.js';
import type { Service } from './service.js';
import type { ServiceStatus } from './context.js';
import { Backoff, RECONNECT_CAP_MS, type RetryTimer } from './backoff.js';
import type { Clock } from './clock.js';

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

/** What `reconcile` gets: the output's slice of the configuration and the license verdict. */
export interface OutputView<Slice> {
  slice: Slice;
  /** Set while the output needs a license the device does not have: the output must be off. */
  blocked?: Blocked;
}

/**
 * An output (or device service) driven by its configuration (docs/architecture.md#output-contract):
 * it names the configuration nodes it watches and the license it needs, picks its typed slice,
 * and brings itself in line with that slice in `reconcile`. `start` and `stop` own the lifecycle
 * (store subscriptions, sockets, timers); settings are applied only in `reconcile`, which the
 * runner calls once after `start` and again after each change of a watched node. An output fails
 * alone: a `reconcile` that throws or rejects is logged and counted, the others still run.
 */
export interface Output<Slice> extends Service {
  readonly watches: readonly ConfigPath[];
  /** 'PLUS': runs only with license PLUS or PRO; under FREE it is reconciled as off. */
  readonly license?: 'PLUS';
  select(config: AppConfig): Slice;
  reconcile(view: OutputView<Slice>): void | Promise<void>;
}

/** Whether a changed leaf lies at or under a watched node. */
export function watchesPath(watches: readonly string[], changed: string): boolean {
  return watches.some((node) => changed === node || changed.startsWith(`${node}.`));
}

/** The view an output gets now: its slice, and the license gate applied in this one place. */
export function viewOf<Slice>(output: Output<Slice>, config: AppConfig): OutputView<Slice> {
  const view: OutputView<Slice> = { slice: output.select(config) };
  if (output.license === 'PLUS' && config.license.type === 'FREE') view.blocked = 'license FREE';
  return view;
}

/**
 * Runs reconciles of one output one at a time (docs/architecture.md#output-contract): a request
 * made while one runs is served by the next run, which reads the configuration when it starts, so
 * the latest settings win and requests that arrive together share one run. Never two at once: an
 * output that awaits inside `reconcile` (node-cron, a socket) cannot interleave with itself.
 */
export class ReconcileQueue {
  private active: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  /** `run` answers a promise only when the reconcile has work left after it returns. */
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

  /** A synchronous reconcile is over when it returns, so the next request may start at once. */
  private begin(): Promise<void> {
    let answer: void | Promise<void>;
    try {
      answer = this.run();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (!(answer instanceof Promise)) return Promise.resolve();
    const running = answer.finally(() => {
      if (this.active === running) this.active = undefined;
    });
    this.active = running;
    return running;
  }
}

/**
 * Runs an output as a service of the daemon (docs/architecture.md#output-contract): start, then
 * reconcile with the current view; on every settings change that touches a watched node (or the
 * license of a licensed output), reconcile again, one reconcile at a time (ReconcileQueue). The
 * change listener answers with the reconcile's promise under the output's name, so a write learns
 * which outputs did not take its change up (the settings API answers 500 naming them).
 *
 * The runner alone retries: a start or reconcile that throws or rejects leaves the output
 * subscribed, shows `error` with the reason under the output's name (the key it reports its own
 * state under) and tries again after a capped exponential backoff on the context's clock (1 s
 * doubling to 30 s, src/backoff.ts); a settings change tries again at once. The first success
 * resets the backoff and takes the error record away. Only a required output's failed start is
 * passed on (start-up ends, exit 1); any other output runs on without its part until it recovers.
 */
export function runOutput<Slice>(ctx: AppContext, output: Output<Slice>, options: RunOptions = {}): Service {
  const watches: readonly string[] = output.license ? [...output.watches, 'license.type'] : output.watches;
  const backoff = options.backoff ?? new Backoff(1000, RECONNECT_CAP_MS);
  const timer = options.retryTimer ?? unrefRetryTimer(ctx.clock);
  let cancelRetry: (() => void) | undefined;
  // The output's own start() has returned (it is retried with the reconcile until it does).
  let outputStarted = false;
  let running = false;
  // The state shown while the last attempt failed, and the one it replaced.
  let failure: { shown: ServiceStatus; before: ServiceStatus | undefined; reason: string } | undefined;
  const failed = (error: unknown): never => {
    const reason = error instanceof Error ? error.message : String(error);
    const current = ctx.services.get(output.name);
    const before = failure && current === failure.shown ? failure.before : current;
    if (running) scheduleRetry();
    const shown: ServiceStatus = { ...before, state: 'error', error: reason };
    if (cancelRetry) shown.retry_in_ms = lastDelay;
    // Each new reason once at error; the same one again (a retry) only at debug.
    const level = failure?.reason === reason ? 'debug' : 'error';
    ctx.logger.log(
      level,
      `${output.name}: ${reason}${cancelRetry ? `; retrying in ${lastDelay / 1000} s` : ''}`,
    );
    failure = { shown, before, reason };
    ctx.services.set(output.name, shown);
    throw error;
  };
  // Success: the error record goes, unless the output has reported a state of its own since.
  const succeeded = (): void => {
    backoff.reset();
    cancelRetry?.();
    cancelRetry = undefined;
    if (failure && ctx.services.get(output.name) === failure.shown) {
      if (failure.before) ctx.services.set(output.name, failure.before);
      else ctx.services.delete(output.name);
    }
    if (failure) ctx.logger.info(`${output.name}: running again`);
    failure = undefined;
  };
  let lastDelay = 0;
  const scheduleRetry = (): void => {
    cancelRetry?.();
    lastDelay = backoff.next();
    cancelRetry = timer(() => {
      cancelRetry = undefined;
      // The outcome is recorded by `failed` / `succeeded`; nobody waits for a retry.
      if (running) queue.request().catch(noop);
    }, lastDelay);
  };
  const reconcileNow = (): void | Promise<void> => {
    let answer: void | Promise<void>;
    try {
      answer = output.reconcile(viewOf(output, ctx.config.config));
    } catch (error) {
      return failed(error);
    }
    if (answer instanceof Promise) return answer.then(succeeded, failed);
    succeeded();
  };
  const queue = new ReconcileQueue(() => {
    if (outputStarted) return reconcileNow();
    return output.start().then(() => {
      outputStarted = true;
      return reconcileNow();
    }, failed);
  });
  const onChange = (paths: readonly string[]): Promise<void> | undefined =>
    paths.some((path) => watchesPath(watches, path)) ? queue.request() : undefined;
  return {
    name: output.name,
    required: output.required,
    async start() {
      running = true;
      ctx.config.subscribe(output.name, 'change', onChange);
      try {
        await queue.request();
      } catch (error) {
        // A required part that cannot run ends the start-up (docs/architecture.md#output-contract).
        if (!output.required) return;
        running = false;
        cancelRetry?.();
        cancelRetry = undefined;
        ctx.config.unsubscribe('change', onChange);
        throw error;
      }
    },
    async stop() {
      if (running) ctx.config.unsubscribe('change', onChange);
      running = false;
      cancelRetry?.();
      cancelRetry = undefined;
      await queue.idle();
      if (outputStarted) await output.stop();
      outputStarted = false;
    },
  };
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
