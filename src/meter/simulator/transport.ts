import { systemClock, type Clock, type Timer } from '../../clock.js';
import { EventEmitter } from 'node:events';
import type { ByteTransport, ByteTransportEvents } from '../transport/transport.js';
import { initialState, seededRandom, step, type HouseholdState } from './model.js';
import { buildTelegram } from './telegram.js';

/**
 * The built-in meter (`meter.source = simulator`): a DSMR 5 telegram per interval, emitted as bytes
 * in two chunks like a serial port delivers them, so it takes the same framer/parser path as a real
 * P1 port. Same seed, same household.
 */
export class SimulatorTransport extends EventEmitter<ByteTransportEvents> implements ByteTransport {
  readonly description = 'simulator (DSMR 5)';
  readonly descriptionKey = { key: 'source.simulator', args: { protocol: 'DSMR 5' } };
  private timer: Timer | undefined;
  private readonly random: () => number;
  private state: HouseholdState | undefined;
  private lastStep: number | undefined;

  constructor(
    seed: number,
    private readonly intervalMs: number,
    private readonly clock: Clock = systemClock,
  ) {
    super();
    this.random = seededRandom(seed);
  }

  async open(): Promise<void> {
    this.state ??= initialState(this.random, this.clock.now());
    this.tick();
  }

  private tick(): void {
    const now = this.clock.now();
    const state = this.state!;
    step(state, this.random, now, this.lastStep === undefined ? 0 : (now - this.lastStep) / 1000);
    this.lastStep = now;
    const telegram = buildTelegram(state, now);
    const split = Math.floor(telegram.length / 2);
    this.timer = this.clock.setTimeout(() => this.tick(), this.intervalMs);
    this.emit('data', telegram.subarray(0, split));
    this.emit('data', telegram.subarray(split));
  }

  async close(): Promise<void> {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
