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

function noop(): void {}
