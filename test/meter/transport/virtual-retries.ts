import type { RetryTimer } from '../../../src/backoff.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * Virtual time for the meter input's retries: each scheduled reconnect is taken at once and its
 * delay added to the elapsed time, so a 5-minute run of real attempts (real port opens, real
 * probes) takes seconds. The delays are the meter input's own backoff.
 */
export class VirtualRetries {
  readonly delays: number[] = [];
  elapsedMs = 0;
  private pending: (() => void) | undefined;

  readonly timer: RetryTimer = (attempt, delayMs) => {
    this.delays.push(delayMs);
    this.pending = attempt;
    return () => {
      if (this.pending === attempt) this.pending = undefined;
    };
  };

  /** Runs attempts until `totalMs` of retry delays have passed. */
  async run(totalMs: number): Promise<void> {
    while (this.elapsedMs < totalMs) {
      const attempt = (await waitFor('the next retry to be scheduled', () => this.pending, Boolean))!;
      this.pending = undefined;
      this.elapsedMs += this.delays.at(-1)!;
      attempt();
    }
  }
}
