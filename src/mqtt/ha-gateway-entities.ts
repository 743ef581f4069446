import type { HaContribution } from './ha-contributors.js';
import { METER_STATUS_EXPIRE_S, type DiscoveryTopics, type HaEntity } from './ha-entities.js';

/**
 * The gateway's own Home Assistant entities, like those of a Tasmota or ESPHome device
 * (docs/architecture.md#home-assistant-discovery): diagnostic sensors (IP address, uptime, Wi-Fi
 * signal where there is Wi-Fi, firmware; the meter status is announced with the meter's entities)
 * in one retained JSON re-sent with the meter status heartbeat, and a restart button. Contributed
 * through the entity contributor seam (./ha-contributors.ts).
 */

/** What the gateway says about itself; read at each heartbeat. */
export interface GatewayFacts {
  /** The IPv4 address HA reaches the gateway at, when it has one. */
  ipAddress(): string | undefined;
  /** Seconds since the daemon started. */
  uptimeS(): number;
  /** Received signal level of the Wi-Fi link in dBm; undefined without Wi-Fi. */
  wifiSignalDbm(): number | undefined;
  firmware: string;
  /** Restart the daemon (the same path as POST /api/v1/reboot). */
  restart(reason: string): void;
}

/** HA MQTT button: the payload it publishes on the command topic when pressed (its default). */
export const RESTART_PAYLOAD = 'PRESS';

type Diagnostic = HaEntity & { value: (facts: GatewayFacts) => string | number | undefined };

const diagnostic = (entity: Omit<HaEntity, 'device' | 'entityCategory'>): HaEntity => ({
  ...entity,
  device: 'gateway',
  entityCategory: 'diagnostic',
});

const DIAGNOSTICS: readonly Diagnostic[] = [
  { ...diagnostic({ key: 'ip_address', name: 'IP address' }), value: (facts) => facts.ipAddress() },
  {
    ...diagnostic({ key: 'uptime', name: 'Uptime', deviceClass: 'duration', unit: 's' }),
    stateClass: 'total_increasing',
    value: (facts) => facts.uptimeS(),
  },
  {
    ...diagnostic({ key: 'wifi_signal', name: 'Wi-Fi signal', deviceClass: 'signal_strength', unit: 'dBm' }),
    stateClass: 'measurement',
    value: (facts) => facts.wifiSignalDbm(),
  },
  { ...diagnostic({ key: 'firmware', name: 'Firmware' }), value: (facts) => facts.firmware },
];

const RESTART_BUTTON: HaEntity = {
  key: 'restart',
  name: 'Restart',
  device: 'gateway',
  component: 'button',
  entityCategory: 'config',
  deviceClass: 'restart',
};

/** The diagnostic states: key -> value, the ones without a value left out. */
export function diagnosticsOf(facts: GatewayFacts): Record<string, string | number> {
  const state: Record<string, string | number> = {};
  for (const entry of DIAGNOSTICS) {
    const value = entry.value(facts);
    if (value !== undefined) state[entry.key] = value;
  }
  return state;
}

/** The entity contributor of the gateway: its diagnostics (Wi-Fi only while there is Wi-Fi) and the restart button. */
export function gatewayContributor(facts: GatewayFacts): (topics: DiscoveryTopics) => HaContribution[] {
  return (topics) => {
    const contributions: HaContribution[] = [];
    for (const { value, ...entity } of DIAGNOSTICS) {
      if (entity.key === 'wifi_signal' && value(facts) === undefined) continue;
      const fields = {
        state_topic: topics.diagnostics,
        value_template: `{{ value_json.${entity.key} | default('') }}`,
        expire_after: METER_STATUS_EXPIRE_S,
      };
      contributions.push({ entity, fields });
    }
    contributions.push({
      entity: RESTART_BUTTON,
      fields: { command_topic: topics.restart, payload_press: RESTART_PAYLOAD },
      onCommand: (payload) => {
        if (payload === RESTART_PAYLOAD) facts.restart('restart pressed in Home Assistant');
      },
    });
    return contributions;
  };
}
