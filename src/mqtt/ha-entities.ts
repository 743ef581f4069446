import { METER_STATUSES } from '../reading/meter-state.js';
import { deviceBlock, originBlock } from './ha-device.js';
import type { DeviceInfo, MeterFacts } from './ha-device.js';
import type { HaComponent, HaEntity } from './ha-entity.js';

/**
 * Home Assistant entities and their discovery configs (docs/architecture.md#home-assistant-discovery);
 * the meter's come from ./ha-meter-entities.ts, the gateway's own from ./ha-gateway-entities.ts.
 */

export type { DeviceInfo, MeterFacts } from './ha-device.js';
export type { EntityDevice, HaComponent, HaEntity } from './ha-entity.js';
export { deviceBlock } from './ha-device.js';
export { entitiesOf, stateOf } from './ha-meter-entities.js';

export interface DiscoveryTopics {
  prefix: string;
  state: string;
  availability: string;
  /** The meter status, its own retained topic: it stays available while the readings are stale. */
  meterStatus: string;
  /** The gateway's diagnostic states (retained JSON, re-sent with the meter status heartbeat). */
  diagnostics: string;
  /** Command topic of the gateway's restart button. */
  restart: string;
  /** Command topics of the actions' buttons live under it: `<actions>/<action id>/press`. */
  actions: string;
}

/** How often the meter status is re-sent, and HA's expire_after for it (3 missed = the gateway is gone). */
export const METER_STATUS_HEARTBEAT_S = 60;
export const METER_STATUS_EXPIRE_S = 3 * METER_STATUS_HEARTBEAT_S;

/** The gateway's entity, announced from the start: the gateway device exists before any reading. */
export const METER_STATUS_ENTITY: HaEntity = {
  key: 'meter_status',
  name: 'Meter status',
  device: 'gateway',
  entityCategory: 'diagnostic',
  deviceClass: 'enum',
  options: METER_STATUSES,
};

export function configTopic(
  prefix: string,
  systemId: string,
  key: string,
  component: HaComponent = 'sensor',
): string {
  return `${prefix}/${component}/${systemId}/${key}/config`;
}

export function uniqueId(systemId: string, key: string): string {
  return `meter-gateway-${systemId}-${key}`;
}

/**
 * The fields of a measurement: the shared state JSON, available while the reading is fresh. The
 * meter status is the payload of its own topic instead, available as long as the gateway re-sends it.
 */
function measurementFields(entity: HaEntity, topics: DiscoveryTopics): Record<string, unknown> {
  if (entity.key === METER_STATUS_ENTITY.key)
    return { state_topic: topics.meterStatus, expire_after: METER_STATUS_EXPIRE_S };
  return {
    state_topic: topics.state,
    value_template: `{{ value_json.${entity.key} | default('') }}`,
    availability_topic: topics.availability,
    payload_available: 'online',
    payload_not_available: 'offline',
  };
}

/**
 * The retained discovery config of one entity (HA MQTT discovery payload). `fields` are the
 * entity's own topics (a contribution's); without them it is a measurement of the state JSON.
 */
export function discoveryConfig(
  entity: HaEntity,
  device: DeviceInfo,
  topics: DiscoveryTopics,
  meters: MeterFacts,
  fields?: Record<string, unknown>,
): Record<string, unknown> {
  const config: Record<string, unknown> = {
    name: entity.name,
    unique_id: uniqueId(device.systemId, entity.key),
    ...(fields ?? measurementFields(entity, topics)),
  };
  if (entity.entityCategory !== undefined) config.entity_category = entity.entityCategory;
  if (entity.stateClass !== undefined) config.state_class = entity.stateClass;
  if (entity.deviceClass !== undefined) config.device_class = entity.deviceClass;
  if (entity.unit !== undefined) config.unit_of_measurement = entity.unit;
  if (entity.options !== undefined) config.options = [...entity.options];
  config.device = deviceBlock(entity.device, device, meters);
  config.origin = originBlock(device);
  return config;
}
