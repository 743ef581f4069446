import type { Logger } from '../log.js';
import { BatchSize, type LivePowerSample } from './batches.js';

/**
 * The live power a push target holds for what: "power_1s" (docs/architecture.md#push): best
 * effort, in memory only, at most LIVE_BUFFER samples (the oldest go), sent in batches that a 413
 * halves like the quarters.
 */

/** Live power samples held per target (power_1s): an hour of a meter sending every second. */
export const LIVE_BUFFER = 3600;
/** Live power samples per request. */
const LIVE_BATCH = 1000;

export class LiveBuffer {
  /** Samples not yet acknowledged, oldest first, at most LIVE_BUFFER. */
  private samples: LivePowerSample[] = [];
  private dropped = 0;
  /** Samples per request, halved by a 413. */
  private readonly batch = new BatchSize(LIVE_BATCH, 'live samples');

  constructor(
    private readonly id: string,
    private readonly logger: Logger,
  ) {}

  get length(): number {
    return this.samples.length;
  }

  /** Takes one sample; past LIVE_BUFFER the oldest goes, logged the first time. */
  add(sample: LivePowerSample): void {
    this.samples.push(sample);
    if (this.samples.length > LIVE_BUFFER) {
      this.samples.shift();
      if (this.dropped++ === 0)
        this.logger.warn(
          `push ${this.id}: live power held beyond ${LIVE_BUFFER} samples; the oldest are dropped (power_1s is not durable)`,
        );
    }
  }

  /** The oldest samples of one request, taken out of the buffer. */
  take(): LivePowerSample[] {
    return this.samples.splice(0, this.batch.size);
  }

  /** Samples taken but not acknowledged go back in front, within LIVE_BUFFER. */
  putBack(batch: LivePowerSample[]): void {
    this.samples = [...batch, ...this.samples].slice(-LIVE_BUFFER);
  }

  /** After a 413: half the samples per request, named; undefined when it is one already. */
  shrink(): string | undefined {
    return this.batch.shrink();
  }
}
