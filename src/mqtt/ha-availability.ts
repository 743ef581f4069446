import type { DiscoveryLink } from './ha-topics.js';

type Availability = 'online' | 'offline';

/**
 * The retained availability of the meter's entities: online only while the reading is fresh, so a
 * stale meter makes them unavailable instead of showing old totals
 * (docs/architecture.md#staleness). Sent only when it changes; the last will and the farewell
 * before a clean disconnect set it offline when the gateway goes.
 */
export class HaAvailability {
  private sent: Availability | undefined;

  constructor(
    private readonly link: DiscoveryLink,
    private readonly topic: () => string,
  ) {}

  set(value: Availability): void {
    if (this.sent === value) return;
    const message = { topic: this.topic(), payload: value, qos: 1 as const, retain: true };
    if (this.link.publish(message, 'drop')) this.sent = value;
  }

  /** The broker may have lost it (a reconnect, HA's birth): the next set() sends it again. */
  forget(): void {
    this.sent = undefined;
  }

  /** The message to send before a clean disconnect. */
  farewell(): { topic: string; payload: string; qos: 1; retain: true } {
    return { topic: this.topic(), payload: 'offline', qos: 1, retain: true };
  }
}
