import { METER_STATUSES } from '../reading/meter-state.js';
import { QUANTITIES, type HaStateClass } from '../reading/quantities.js';
import type { MbusReading, MeterIdentity, Reading } from '../reading/reading.js';

/**
 * Home Assistant sensor entities of a reading (docs/architecture.md#home-assistant-discovery): one per
 * quantity of the quantity table the meter actually sent (with its `ha` classes), the tariff, plus one per
 * M-Bus channel (gas, water, heat) with a cumulative value, and the gateway's meter status. Each belongs to
 * one HA device: the electricity meter (manufacturer, model and serial from the meter's identity), each M-Bus
 * meter (its equipment id as serial), or the gateway, which the others name as `via_device`. Pure
 * functions; discovery.ts publishes what they build.
 */

/** The HA device an entity belongs to: the electricity meter, an M-Bus channel's meter, the gateway. */
export type EntityDevice = 'meter' | 'gateway' | { mbus: number };

export interface HaEntity {
  /** Stable key: quantity key, `tariff`, `meter_status` or `mbus_<channel>`; part of unique_id and of the state JSON. */
  key: string;
  name: string;
  device: EntityDevice;
  deviceClass?: string;
  /** Absent for values without statistics (tariff, status). */
  stateClass?: HaStateClass;
  /** unit_of_measurement; absent for dimensionless values (HA: power_factor takes no unit or %). */
  unit?: string;
  /** device_class enum: the values the state can take. */
  options?: readonly string[];
}

export interface DeviceInfo {
  systemId: string;
  name: string;
  model: string;
  firmware: string;
  /** http://<host>:<port>/ of this gateway's API, when known. */
  configurationUrl?: string;
}

/** What the meters said about themselves, for their HA devices. */
export interface MeterFacts {
  identity: MeterIdentity;
  mbus: ReadonlyArray<Pick<MbusReading, 'bus' | 'meterId' | 'deviceType'>>;
}

export interface DiscoveryTopics {
  prefix: string;
  state: string;
  availability: string;
  /** The meter status, its own retained topic: it stays available while the readings are stale. */
  meterStatus: string;
}

/** How often the meter status is re-sent, and HA's expire_after for it (3 missed = the gateway is gone). */
export const METER_STATUS_HEARTBEAT_S = 60;
export const METER_STATUS_EXPIRE_S = 3 * METER_STATUS_HEARTBEAT_S;

/** The gateway's entity, announced from the start: the gateway device exists before any reading. */
export const METER_STATUS_ENTITY: HaEntity = {
  key: 'meter_status',
  name: 'Meter status',
  device: 'gateway',
  deviceClass: 'enum',
  options: METER_STATUSES,
};

const TARIFF_ENTITY: HaEntity = { key: 'tariff', name: 'Tariff', device: 'meter' };

const isTotal = (stateClass: HaStateClass | undefined): boolean =>
  stateClass === 'total' || stateClass === 'total_increasing';
const QUANTITY_BY_KEY = new Map(QUANTITIES.map((quantity) => [quantity.key, quantity]));

/** EN 13757-3 §8.4.1 device types: 03 gas, 04/0C heat, 06 warm water, 07 water, 15 hot, 16 cold water. */
const MBUS_WATER = new Set([0x06, 0x07, 0x15, 0x16]);
const MBUS_HEAT = new Set([0x04, 0x0c]);
const HA_ENERGY_UNITS: Record<string, string> = { GJ: 'GJ', MJ: 'MJ', kWh: 'kWh', MWh: 'MWh' };

function mbusEntity(channel: MbusReading): HaEntity | undefined {
  if (channel.cumulative === undefined) return undefined;
  const key = `mbus_${channel.bus}`;
  const type = channel.deviceType;
  if (channel.unit === 'm3') {
    const deviceClass =
      type === 0x03 ? 'gas' : type !== undefined && MBUS_WATER.has(type) ? 'water' : 'volume';
    const label = deviceClass === 'volume' ? 'Volume' : deviceClass === 'gas' ? 'Gas' : 'Water';
    return {
      key,
      name: `${label} (M-Bus ${channel.bus})`,
      device: { mbus: channel.bus },
      deviceClass,
      stateClass: 'total_increasing',
      unit: 'm³',
    };
  }
  const energyUnit = channel.unit !== undefined ? HA_ENERGY_UNITS[channel.unit] : undefined;
  if (energyUnit && (type === undefined || MBUS_HEAT.has(type))) {
    return {
      key,
      name: `Heat (M-Bus ${channel.bus})`,
      device: { mbus: channel.bus },
      deviceClass: 'energy',
      stateClass: 'total_increasing',
      unit: energyUnit,
    };
  }
  return undefined;
}

/** Active tariff: the parsed one, else 0-0:96.14.0 as sent. */
function tariffOf(reading: Reading): number | undefined {
  return reading.tariff ?? reading.values.get('96.14.0')?.value;
}

/**
 * The entities of a reading. A quantity counts only when its value carries the table's unit: a
 * value a parser left in a unit it did not know must not be announced under the wrong unit.
 */
export function entitiesOf(reading: Reading): HaEntity[] {
  const entities: HaEntity[] = [];
  for (const quantity of QUANTITIES) {
    const value = reading.values.get(quantity.obis);
    if (value === undefined || value.unit !== quantity.unit || quantity.ha.unit !== quantity.unit) continue;
    const entity: HaEntity = {
      key: quantity.key,
      name: quantity.name,
      device: 'meter',
      stateClass: quantity.ha.stateClass,
    };
    if (quantity.ha.deviceClass !== undefined) entity.deviceClass = quantity.ha.deviceClass;
    if (quantity.ha.unit !== '') entity.unit = quantity.ha.unit;
    entities.push(entity);
  }
  if (tariffOf(reading) !== undefined) entities.push(TARIFF_ENTITY);
  for (const channel of reading.mbus) {
    const entity = mbusEntity(channel);
    if (entity) entities.push(entity);
  }
  return entities;
}

/**
 * The flat state JSON of a reading: entity key -> value. A total (state class total or
 * total_increasing) of 0 is left out: a meter register does not return to 0, and Home Assistant
 * would book a drop to 0 as a meter reset, counting the whole register again in the energy
 * dashboard. A left-out key renders as '' in the value template, which HA ignores for numeric
 * sensors (keeps the last state).
 */
export function stateOf(
  reading: Reading,
  entities: readonly HaEntity[] = entitiesOf(reading),
): Record<string, number> {
  const state: Record<string, number> = {};
  for (const entity of entities) {
    const quantity = QUANTITY_BY_KEY.get(entity.key);
    const value = quantity
      ? reading.values.get(quantity.obis)?.value
      : entity.key === TARIFF_ENTITY.key
        ? tariffOf(reading)
        : reading.mbus.find((channel) => `mbus_${channel.bus}` === entity.key)?.cumulative;
    if (value === undefined || !Number.isFinite(value)) continue;
    if (value === 0 && isTotal(entity.stateClass)) continue;
    state[entity.key] = value;
  }
  return state;
}

export function configTopic(prefix: string, systemId: string, key: string): string {
  return `${prefix}/sensor/${systemId}/${key}/config`;
}

export function uniqueId(systemId: string, key: string): string {
  return `meter-gateway-${systemId}-${key}`;
}

/** HA device identifier of the gateway; the meters' devices name it as via_device. */
function gatewayIdentifier(systemId: string): string {
  return `meter-gateway-${systemId}`;
}

/** EN 13757-3 §8.4.1 device type -> the name of the M-Bus meter's device. */
function mbusDeviceName(deviceType: number | undefined, bus: number): string {
  if (deviceType === 0x03) return 'Gas meter';
  if (deviceType !== undefined && MBUS_WATER.has(deviceType)) return 'Water meter';
  if (deviceType !== undefined && MBUS_HEAT.has(deviceType)) return 'Heat meter';
  return `M-Bus meter ${bus}`;
}

/** Sets the keys whose value is known; HA rejects nothing for an absent optional key. */
function withKnown(target: Record<string, unknown>, fields: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined && value !== '') target[key] = value;
}

/** The `device` block of an entity's config (HA MQTT discovery device mapping). */
export function deviceBlock(
  entity: HaEntity,
  device: DeviceInfo,
  meters: MeterFacts,
): Record<string, unknown> {
  const gateway = gatewayIdentifier(device.systemId);
  if (entity.device === 'gateway') {
    const block: Record<string, unknown> = {
      identifiers: [gateway],
      name: device.name,
      manufacturer: 'meter-gateway',
      model: device.model,
      sw_version: device.firmware,
    };
    withKnown(block, { configuration_url: device.configurationUrl });
    return block;
  }
  if (entity.device === 'meter') {
    const { identity } = meters;
    const block: Record<string, unknown> = {
      identifiers: [`${gateway}-meter`],
      name: 'Electricity meter',
      via_device: gateway,
    };
    withKnown(block, {
      manufacturer: identity.vendor ?? identity.prefix,
      model: identity.model,
      serial_number: identity.id,
    });
    return block;
  }
  const { mbus: bus } = entity.device;
  const channel = meters.mbus.find((candidate) => candidate.bus === bus);
  const block: Record<string, unknown> = {
    identifiers: [`${gateway}-mbus-${bus}`],
    name: mbusDeviceName(channel?.deviceType, bus),
    via_device: gateway,
  };
  withKnown(block, { serial_number: channel?.meterId });
  return block;
}

/** The retained discovery config of one entity (HA MQTT sensor, discovery payload). */
export function discoveryConfig(
  entity: HaEntity,
  device: DeviceInfo,
  topics: DiscoveryTopics,
  meters: MeterFacts,
): Record<string, unknown> {
  const config: Record<string, unknown> = {
    name: entity.name,
    unique_id: uniqueId(device.systemId, entity.key),
  };
  if (entity.key === METER_STATUS_ENTITY.key) {
    // The status is the payload itself; available as long as the gateway re-sends it.
    config.state_topic = topics.meterStatus;
    config.expire_after = METER_STATUS_EXPIRE_S;
  } else {
    config.state_topic = topics.state;
    config.value_template = `{{ value_json.${entity.key} | default('') }}`;
    config.availability_topic = topics.availability;
    config.payload_available = 'online';
    config.payload_not_available = 'offline';
  }
  if (entity.stateClass !== undefined) config.state_class = entity.stateClass;
  if (entity.deviceClass !== undefined) config.device_class = entity.deviceClass;
  if (entity.unit !== undefined) config.unit_of_measurement = entity.unit;
  if (entity.options !== undefined) config.options = [...entity.options];
  config.device = deviceBlock(entity, device, meters);
  config.origin = { name: 'meter-gateway', sw_version: device.firmware };
  return config;
}
