import { systemClock, type Clock, type Timer } from '../clock.js';
import type { Reading } from '../reading/reading.js';
import { METER_STATUS_HEARTBEAT_S } from './ha-entities.js';
import { entitiesOf, stateOf } from './ha-meter-entities.js';
import { gatewayTopics, type DiscoveryLink, type DiscoverySettings } from './ha-topics.js';

/**
 * The state messages of Home Assistant discovery: the meter's state JSON at most once per
 * mqtt.discovery.state_interval (a reading inside the interval is not lost: the latest one goes out
 * when the interval ends), and the retained meter status with its heartbeat every
 * METER_STATUS_HEARTBEAT_S, so it expires in HA when the gateway is gone. `heartbeat` runs with
 * each status message (the gateway's diagnostic states ride on it).
 */
export class HaStates {
  private stateTimer: Timer | undefined;
  private statusTimer: Timer | undefined;
  /** When the last state message went out (0: none yet, so the first reading's goes at once). */
  private lastStateAt = 0;
  /** Totals that have been above 0: a later 0 of one of them is a drop, not a value (stateOf). */
  private readonly totalsAboveZero = new Set<string>();

  constructor(
    private readonly link: DiscoveryLink,
    private readonly settings: () => DiscoverySettings,
    private readonly sources: {
      latest: () => Reading | undefined;
      meterStatus: () => string;
      heartbeat?: () => void;
      clock?: Clock;
    },
  ) {}

  private get clock(): Clock {
    return this.sources.clock ?? systemClock;
  }

  private get topics() {
    const { device, prefix } = this.settings();
    return gatewayTopics(device.systemId, prefix);
  }

  private active(): boolean {
    return this.settings().enabled && this.link.connected;
  }

  /** The latest reading's state now, or when the state interval since the last one has passed. */
  publishAtRate(): void {
    const interval = this.settings().stateIntervalMs;
    const wait = this.lastStateAt + interval - this.clock.now();
    if (wait <= 0 || interval <= 0) {
      this.publishLatest();
      return;
    }
    this.stateTimer ??= this.clock.setTimeout(() => {
      this.stateTimer = undefined;
      if (this.active()) this.publishLatest();
    }, wait);
  }

  /** The state of the store's latest reading (never a stale one: latest() is undefined then). */
  publishLatest(): void {
    const reading = this.sources.latest();
    if (!reading) return;
    this.lastStateAt = this.clock.now();
    const payload = JSON.stringify(stateOf(reading, entitiesOf(reading), this.totalsAboveZero));
    this.link.publish({ topic: this.topics.state, payload, qos: 0, retain: false }, 'drop');
  }

  /** The meter status changed (or its heartbeat is due): the status entity's state. */
  publishMeterStatus(): void {
    if (this.statusTimer) this.clock.clearTimeout(this.statusTimer);
    this.statusTimer = undefined;
    if (!this.active()) return;
    const payload = this.sources.meterStatus();
    this.link.publish({ topic: this.topics.meterStatus, payload, qos: 1, retain: true }, 'drop');
    this.sources.heartbeat?.();
    this.statusTimer = this.clock.setTimeout(
      () => this.publishMeterStatus(),
      METER_STATUS_HEARTBEAT_S * 1000,
    );
    this.statusTimer.unref();
  }

  stop(): void {
    if (this.stateTimer) this.clock.clearTimeout(this.stateTimer);
    this.stateTimer = undefined;
    if (this.statusTimer) this.clock.clearTimeout(this.statusTimer);
    this.statusTimer = undefined;
  }
}
