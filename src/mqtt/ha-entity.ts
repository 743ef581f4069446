import type { HaStateClass } from '../reading/quantities.js';

/**
 * What a Home Assistant entity of this gateway is, before it becomes a discovery config
 * (./ha-entities.ts builds the configs; docs/architecture.md#home-assistant-discovery).
 */

/**
 * The HA device an entity belongs to: the electricity meter, an M-Bus channel's meter, the gateway,
 * or a further meter of `meters` (docs/architecture.md#several-meters).
 */
export type EntityDevice =
  'meter' | 'gateway' | { mbus: number } | { meter: string; name: string; role: string };

/** HA MQTT discovery components this gateway announces (the `<component>` of the config topic). */
export type HaComponent = 'sensor' | 'binary_sensor' | 'button' | 'number' | 'select' | 'switch' | 'event';

export interface HaEntity {
  /** Stable key: quantity key, `tariff`, `meter_status`, `mbus_<channel>`, ...; part of unique_id and of the state JSON. */
  key: string;
  name: string;
  device: EntityDevice;
  /** Absent: a sensor. */
  component?: HaComponent;
  /** `diagnostic` for facts about the gateway itself (HA shows them apart from the measurements). */
  entityCategory?: 'diagnostic' | 'config';
  deviceClass?: string;
  /** Absent for values without statistics (tariff, status). */
  stateClass?: HaStateClass;
  /** unit_of_measurement; absent for dimensionless values (HA: power_factor takes no unit or %). */
  unit?: string;
  /** device_class enum: the values the state can take. */
  options?: readonly string[];
}
