import type { Timer } from '../clock.js';
import type { AppContext } from '../context.js';
import type { StatusPort } from '../output.js';

/**
 * How often a serving slave's counters (connections, requests, exceptions) are copied to its
 * status line. The slave counts per request; the status line is one record for every reader
 * (`/api/v1/system`, the status board, mDNS), so it is written at most this often and only when
 * a counter changed, never per request (docs/architecture.md#output-contract).
 */
export const COUNTERS_EVERY_MS = 1000;

/**
 * What the Modbus TCP and RTU slave outputs share (docs/architecture.md#output-contract): the
 * license they need, the status port the runner gives at `start`, and the counters of the serving
 * endpoint copied to the status line while it serves. Each subclass owns its endpoint (a TCP
 * listener, a serial port), opens, moves and closes it in `apply`, and releases it in `stop`.
 * The runner serialises the applies and retries failed ones: nothing here queues or retries.
 */
export abstract class SlaveOutput<Counters extends object> {
  readonly license = 'PLUS';
  protected status: StatusPort<Counters> | undefined;
  private countersTimer: Timer | undefined;
  private shown: string | undefined;

  constructor(protected readonly ctx: AppContext) {}

  async start(status: StatusPort<Counters>): Promise<void> {
    this.status = status;
    this.publishCounters();
  }

  async stop(): Promise<void> {
    this.stopCounters();
    await this.close();
  }

  /** Closes the endpoint (stop, or an apply that turns it off). */
  protected abstract close(): Promise<void>;

  /** The counters of the endpoint now (zero while none serves). */
  protected abstract counterFacts(): Counters;

  /** Copies the counters to the status line when they changed since the last copy. */
  protected publishCounters(): void {
    const counters = this.counterFacts();
    const key = JSON.stringify(counters);
    if (key === this.shown) return;
    this.shown = key;
    this.status?.facts(counters);
  }

  /** While the endpoint serves: its counters reach the status line within COUNTERS_EVERY_MS. */
  protected startCounters(): void {
    this.publishCounters();
    if (this.countersTimer) return;
    this.countersTimer = this.ctx.clock.setInterval(() => this.publishCounters(), COUNTERS_EVERY_MS);
    this.countersTimer.unref();
  }

  protected stopCounters(): void {
    if (this.countersTimer) this.ctx.clock.clearInterval(this.countersTimer);
    this.countersTimer = undefined;
    this.publishCounters();
  }
}
