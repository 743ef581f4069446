/**
 * The runner of the declared outputs (docs/architecture.md#output-contract): one apply at a time
 * (ReconcileQueue), the retries, the subscriptions to the configuration and the meter registry,
 * and the status line each output reports through. The contract it runs is src/output.ts.
 */
import type { AppContext, ServiceStatus } from './context.js';
import type { Service } from './service.js';
import { Backoff, RECONNECT_CAP_MS, type RetryTimer } from './backoff.js';
import type { Clock } from './clock.js';
import { ReconcileQueue } from './reconcile-queue.js';
import type { OutputName, OutputState } from './contracts/outputs.js';
import {
  meterLookup,
  sameSlice,
  type DeclaredOutput,
  type MeterLookup,
  type OutputView,
  type StatusPort,
} from './output.js';

/** Whether a changed leaf lies at or under a watched node. */
export function watchesPath(watches: readonly string[], changed: string): boolean {
  return watches.some((node) => changed === node || changed.startsWith(`${node}.`));
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
  return new OutputRunner(ctx, output, options);
}

/**
 * The status line of one output (docs/architecture.md#output-contract): what its last apply
 * returned, what it reported since through its StatusPort, and the runner's failure fields. The
 * runner is its one writer; `publish` puts it under the output's name.
 */
class StatusLine<Slice, Facts extends object> {
  applied: OutputView<Slice> | undefined;
  failure: { reason: string; final: boolean } | undefined;
  /** The delay of the retry waiting, shown as `retry_in_ms` while one waits. */
  retryInMs: number | undefined;
  private appliedFacts: Partial<Facts> = {};
  private liveFacts: Record<string, unknown> = {};
  private trouble: string | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly output: DeclaredOutput<Slice, Facts, string>,
  ) {}

  /** What the output reports between applies. */
  readonly port: StatusPort<Facts> = {
    facts: (update) => {
      const merged: Record<string, unknown> = { ...this.liveFacts };
      for (const [key, value] of Object.entries(update)) {
        if (value === undefined) delete merged[key];
        else merged[key] = value;
      }
      this.liveFacts = merged;
      this.publish();
    },
    trouble: (reason) => {
      if (this.trouble === reason) return;
      this.trouble = reason;
      this.publish();
    },
  };

  /** An apply of `view` succeeded with `facts`. */
  applyDone(view: OutputView<Slice>, facts: Facts | void): void {
    this.failure = undefined;
    this.applied = view;
    this.appliedFacts = facts ?? {};
    // The newest value of a fact wins: one the apply returned replaces what was reported before it.
    this.liveFacts = Object.fromEntries(
      Object.entries(this.liveFacts).filter(([key]) => !Object.hasOwn(this.appliedFacts, key)),
    );
    this.publish();
  }

  publish(): void {
    const status: Record<string, unknown> = { state: this.state(), ...this.appliedFacts, ...this.liveFacts };
    const reason = this.failure?.reason ?? this.trouble;
    if (reason !== undefined) status.error = reason;
    if (this.failure && !this.failure.final && this.retryInMs !== undefined)
      status.retry_in_ms = this.retryInMs;
    this.ctx.services.set(this.output.name, status as ServiceStatus);
  }

  private state(): OutputState {
    if (this.failure) return this.failure.final ? 'error' : 'retrying';
    if (!this.applied) return 'starting';
    if (this.applied.blocked) return 'blocked';
    if (this.output.enabled && !this.output.enabled(this.applied.slice)) return 'disabled';
    return this.trouble === undefined ? 'running' : 'retrying';
  }
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
 * - writes the output's status line under its name (StatusLine).
 * A settings change answers (through the config store's `settled`) with the apply's promise, so a
 * write learns which outputs did not take it up. Only a required output's failed start is passed
 * on (start-up ends, exit 1).
 */
class OutputRunner<Slice, Facts extends object, Name extends string> implements Service {
  readonly name: Name;
  readonly required: boolean | undefined;
  private readonly watches: readonly string[];
  private readonly backoff: Backoff;
  private readonly timer: RetryTimer;
  private readonly meters: MeterLookup;
  private readonly status: StatusLine<Slice, Facts>;
  private readonly queue = new ReconcileQueue(() => this.run());
  private cancelRetry: (() => void) | undefined;
  private outputStarted = false;
  private running = false;
  private lastReason: string | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly output: DeclaredOutput<Slice, Facts, Name>,
    options: RunOptions,
  ) {
    this.name = output.name;
    this.required = output.required;
    this.watches = output.license ? [...output.watches, 'license.type'] : output.watches;
    this.backoff = options.backoff ?? new Backoff(1000, RECONNECT_CAP_MS);
    this.timer = options.retryTimer ?? unrefRetryTimer(ctx.clock);
    this.meters = meterLookup(ctx.meters);
    this.status = new StatusLine(ctx, output);
  }

  async start(): Promise<void> {
    this.running = true;
    this.status.publish();
    this.ctx.config.subscribe(this.output.name, 'change', this.onChange);
    this.ctx.meters.subscribe(this.output.name, 'added', this.onRegistry);
    this.ctx.meters.subscribe(this.output.name, 'removed', this.onRegistry);
    try {
      await this.queue.request();
    } catch (error) {
      // A required part that cannot run ends the start-up (docs/architecture.md#output-contract).
      if (!this.output.required) return;
      this.running = false;
      this.stopRetry();
      this.unsubscribe();
      if (this.status.failure) this.status.failure = { ...this.status.failure, final: true };
      this.status.publish();
      throw error;
    }
  }

  async stop(): Promise<void> {
    if (this.running) this.unsubscribe();
    this.running = false;
    this.stopRetry();
    await this.queue.idle();
    if (this.outputStarted) await this.output.stop();
    this.outputStarted = false;
  }

  /** One run of the queue: the output's start first (until it succeeded once), then an apply. */
  private run(): void | Promise<void> {
    if (this.outputStarted) return this.applyNow();
    return this.output.start(this.status.port).then(() => {
      this.outputStarted = true;
      return this.applyNow();
    }, this.failed);
  }

  private currentView(): OutputView<Slice> {
    const view: OutputView<Slice> = { slice: this.output.select(this.ctx.config.config, this.meters) };
    if (this.output.license === 'PLUS' && this.ctx.config.config.license.type === 'FREE')
      view.blocked = 'license FREE';
    return view;
  }

  private applyNow(): void | Promise<void> {
    const { applied, failure } = this.status;
    let next: OutputView<Slice>;
    let answer: Facts | void | Promise<Facts | void>;
    try {
      next = this.currentView();
      // Nothing to do: the view is the one applied, and no failure waits for another attempt.
      if (applied && !failure && sameSlice(next, applied)) return;
      answer = this.output.apply(next, applied);
    } catch (error) {
      return this.failed(error);
    }
    if (answer instanceof Promise) return answer.then((facts) => this.succeeded(next, facts), this.failed);
    this.succeeded(next, answer);
  }

  private readonly failed = (error: unknown): never => {
    const reason = error instanceof Error ? error.message : String(error);
    if (this.running) this.scheduleRetry();
    // Each new reason once at error; the same one again (a retry) only at debug.
    this.ctx.logger.log(
      this.lastReason === reason ? 'debug' : 'error',
      `${this.output.name}: ${reason}${this.cancelRetry ? `; retrying in ${this.status.retryInMs! / 1000} s` : ''}`,
    );
    this.lastReason = reason;
    this.status.failure = { reason, final: !this.running };
    this.status.publish();
    throw error;
  };

  private succeeded(next: OutputView<Slice>, facts: Facts | void): void {
    this.backoff.reset();
    this.stopRetry();
    if (this.status.failure) this.ctx.logger.info(`${this.output.name}: running again`);
    this.lastReason = undefined;
    this.status.applyDone(next, facts);
  }

  private scheduleRetry(): void {
    this.cancelRetry?.();
    const delay = this.backoff.next();
    this.status.retryInMs = delay;
    this.cancelRetry = this.timer(() => {
      this.cancelRetry = undefined;
      this.status.retryInMs = undefined;
      // The outcome is recorded by `failed` / `succeeded`; nobody waits for a retry.
      if (this.running) this.queue.request().catch(noop);
    }, delay);
  }

  private stopRetry(): void {
    this.cancelRetry?.();
    this.cancelRetry = undefined;
    this.status.retryInMs = undefined;
  }

  /** A change of a watched node, or a retry while failing: an apply when the view really changed. */
  private readonly onChange = (paths: readonly string[]): Promise<void> | undefined => {
    if (!paths.some((path) => watchesPath(this.watches, path))) return undefined;
    const { applied, failure } = this.status;
    if (failure || !applied) return this.queue.request();
    return sameSlice(this.currentView(), applied) ? undefined : this.queue.request();
  };

  /**
   * A meter came, went or restarted: outputs whose slice holds it apply the new handle. A failing
   * output tries again at once (the meter it waited for may have come), as on a settings change.
   */
  private readonly onRegistry = (): void => {
    if (!this.running || !this.outputStarted) return;
    const { applied, failure } = this.status;
    if (failure || (applied && !sameSlice(this.currentView(), applied))) this.queue.request().catch(noop);
  };

  private unsubscribe(): void {
    this.ctx.config.unsubscribe('change', this.onChange);
    this.ctx.meters.off('added', this.onRegistry);
    this.ctx.meters.off('removed', this.onRegistry);
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
