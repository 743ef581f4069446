import type { AppContext } from '../context.js';
import type { OutputView } from '../output.js';

/** The extra fields of a slave's status line when it is not serving. */
export interface SlaveStatusDetail {
  error?: string;
  reason?: string;
}

/**
 * What the Modbus TCP and RTU slave outputs share: the lifecycle (`start` marks the output as
 * started, `stop` closes its endpoint), the last view reconciled, the endpoint changes run one
 * after another, and the status while the slave does not serve (stopped, disabled, or stopped
 * for the license). Each subclass owns its endpoint (a TCP listener, a serial port) and its
 * status line's counters.
 */
export abstract class SlaveOutput<Slice> {
  readonly license = 'PLUS';
  protected started = false;
  /** The last view reconciled; undefined before the first. */
  protected view: OutputView<Slice> | undefined;
  private reconciling: Promise<void> = Promise.resolve();
  /** The last endpoint change failed: the next reconcile tries again even with the same view. */
  protected failedLast = false;

  constructor(protected readonly ctx: AppContext) {}

  async start(): Promise<void> {
    this.started = true;
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.apply();
  }

  /**
   * Brings the endpoint in line with the settings; calls run one after another, and one that
   * rejects (a port in use) does not stop the next one: the chain goes on after a failure, and
   * the failure reaches the caller (the runner retries it: docs/architecture.md#output-contract).
   */
  protected apply(reopen = false): Promise<void> {
    const run = this.reconciling.catch(noop).then(() => this.applySettings(reopen));
    this.reconciling = run.then(
      () => {
        this.failedLast = false;
      },
      (error: unknown) => {
        this.failedLast = true;
        throw error;
      },
    );
    return this.reconciling;
  }

  /** The endpoint change in progress (resolved when none is); after a failure, a new attempt. */
  protected settled(): Promise<void> {
    return this.failedLast ? this.apply() : this.reconciling;
  }

  /** Opens, moves or closes the endpoint as the current view and `started` ask. */
  protected abstract applySettings(reopen: boolean): Promise<void>;

  /** Publishes the service line (its counters read live). */
  protected abstract report(state: string, detail?: SlaveStatusDetail): void;

  /**
   * Reports why the slave does not serve, when the reason is one of the shared ones: not started
   * or no settings yet (stopped), switched off (disabled), or blocked by the license. Returns
   * false when none of them holds, so the caller reports its own reason.
   */
  protected reportIdle(enabled: boolean | undefined): boolean {
    if (!this.started || enabled === undefined) this.report('stopped');
    else if (!enabled) this.report('disabled');
    else if (this.view?.blocked) this.report('stopped', { reason: this.view.blocked });
    else return false;
    return true;
  }
}

function noop(): void {}
