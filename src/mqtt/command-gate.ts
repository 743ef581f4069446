import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { worthLogging, type Refusals } from '../refusals.js';

/**
 * The bounds of what the gateway takes from the broker (docs/architecture.md#hostile-input). The
 * link subscribes only to command topics (buttons, peak guard settings) and Home Assistant's
 * status topic: every payload there is a word or a number, so anything over `maxPayloadBytes` is
 * dropped and counted (`mqtt_command_oversized`). A token bucket limits the rate: `burst` messages
 * at once, then `perSecond`; a message beyond it is dropped, counted (`mqtt_command_rate`) and
 * logged (the first of a run and every power of ten after, so a flood writes a handful of lines),
 * so a flood of settings commands cannot turn into a flood of state-file writes.
 */
export interface CommandGateLimits {
  maxPayloadBytes: number;
  burst: number;
  perSecond: number;
}

export const COMMAND_GATE_LIMITS: CommandGateLimits = { maxPayloadBytes: 512, burst: 20, perSecond: 2 };

export class CommandGate {
  private tokens: number;
  private filledAt: number;
  private refusedInRun = 0;

  constructor(
    private readonly clock: Clock,
    private readonly refusals: Refusals,
    private readonly logger: Logger,
    private readonly limits: CommandGateLimits = COMMAND_GATE_LIMITS,
  ) {
    this.tokens = limits.burst;
    this.filledAt = clock.now();
  }

  /** Whether the message may go on to its handler; a retained one is bounded in size only. */
  admit(topic: string, payload: Buffer, retained = false): boolean {
    if (payload.length > this.limits.maxPayloadBytes) {
      const count = this.refusals.add('mqtt_command_oversized');
      if (worthLogging(count))
        this.logger.warn(
          `mqtt: message on ${topic.slice(0, 200)} dropped: ${payload.length} bytes, limit ${this.limits.maxPayloadBytes} (${count} so far)`,
        );
      return false;
    }
    if (retained) return true;
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.filledAt) / 1000;
    this.tokens = Math.min(this.limits.burst, this.tokens + elapsed * this.limits.perSecond);
    this.filledAt = now;
    if (this.tokens < 1) {
      this.refusals.add('mqtt_command_rate');
      this.refusedInRun++;
      if (worthLogging(this.refusedInRun))
        this.logger.warn(
          `mqtt: command on ${topic.slice(0, 200)} refused: more than ${this.limits.burst} at once or ${this.limits.perSecond}/s (${this.refusedInRun} refused in this run)`,
        );
      return false;
    }
    this.tokens -= 1;
    this.refusedInRun = 0;
    return true;
  }
}
