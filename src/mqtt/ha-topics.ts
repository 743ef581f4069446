import type { Clock } from '../clock.js';
import type { Reading } from '../reading/reading.js';
import type { BrokerLink } from './broker-link.js';
import type { LastWill } from './connection-options.js';
import type { EntityContributor } from './ha-contributors.js';
import type { DeviceInfo } from './ha-device.js';
import type { DiscoveryTopics } from './ha-entities.js';

export type DiscoveryLink = Pick<BrokerLink, 'publish' | 'subscribe' | 'unsubscribe' | 'connected'>;

export interface DiscoverySources {
  latest: () => Reading | undefined;
  meterStatus: () => string;
  /** Modules that add entities to the gateway's device (./ha-contributors.ts). */
  contributors?: readonly EntityContributor[];
  /** Runs with each meter status heartbeat (the gateway's diagnostic states). */
  heartbeat?: () => void;
  random?: () => number;
  /** Timers of the state interval and the heartbeat (docs/architecture.md#clock). */
  clock?: Clock;
}

export interface DiscoverySettings {
  enabled: boolean;
  prefix: string;
  /**
   * At most one state message per this many ms (mqtt.discovery.state_interval; 0: every reading).
   * A reading inside the interval is not lost: the latest one goes out when the interval ends.
   */
  stateIntervalMs: number;
  device: DeviceInfo;
}

export function gatewayTopics(systemId: string, prefix: string): DiscoveryTopics {
  return {
    prefix,
    state: `meter-gateway/${systemId}/state`,
    availability: `meter-gateway/${systemId}/availability`,
    meterStatus: `meter-gateway/${systemId}/meter_status`,
    diagnostics: `meter-gateway/${systemId}/diagnostics`,
    restart: `meter-gateway/${systemId}/restart`,
    actions: `meter-gateway/${systemId}/action`,
  };
}

/** Last will: the broker marks every entity unavailable when the gateway vanishes without DISCONNECT. */
export function availabilityWill(systemId: string): LastWill {
  return { topic: gatewayTopics(systemId, '').availability, payload: 'offline', qos: 1, retain: true };
}
