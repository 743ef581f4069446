import { QUANTITIES, type HaStateClass } from '../reading/quantities.js';
import type { MbusReading, Reading } from '../reading/reading.js';

/**
 * Home Assistant sensor entities of a reading (DESIGN §5): one per quantity of the quantity table the
 * meter actually sent (with its `ha` classes), plus one per M-Bus channel (gas, water, heat) with a
 * cumulative value. Pure functions; discovery.ts publishes what they build.
 */
export interface HaEntity {
  /** Stable key: quantity key or `mbus_<channel>`; part of unique_id and of the state JSON. */
  key: string;
  name: string;
  deviceClass?: string;
  stateClass: HaStateClass;
  /** unit_of_measurement; absent for dimensionless values (HA: power_factor takes no unit or %). */
  unit?: string;
}

export interface DeviceInfo {
  systemId: string;
  name: string;
  model: string;
  firmware: string;
  /** http://<host>:<port>/ of this gateway's API, when known. */
  configurationUrl?: string;
}

export interface DiscoveryTopics {
  prefix: string;
  state: string;
  availability: string;
}

const isTotal = (stateClass: HaStateClass): boolean => stateClass !== 'measurement';
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
      deviceClass: 'energy',
      stateClass: 'total_increasing',
      unit: energyUnit,
    };
  }
  return undefined;
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
    const entity: HaEntity = { key: quantity.key, name: quantity.name, stateClass: quantity.ha.stateClass };
    if (quantity.ha.deviceClass !== undefined) entity.deviceClass = quantity.ha.deviceClass;
    if (quantity.ha.unit !== '') entity.unit = quantity.ha.unit;
    entities.push(entity);
  }
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

/** The retained discovery config of one entity (HA MQTT sensor, discovery payload). */
export function discoveryConfig(
  entity: HaEntity,
  device: DeviceInfo,
  topics: DiscoveryTopics,
): Record<string, unknown> {
  const config: Record<string, unknown> = {
    name: entity.name,
    unique_id: uniqueId(device.systemId, entity.key),
    state_topic: topics.state,
    value_template: `{{ value_json.${entity.key} | default('') }}`,
    availability_topic: topics.availability,
    payload_available: 'online',
    payload_not_available: 'offline',
    state_class: entity.stateClass,
  };
  if (entity.deviceClass !== undefined) config.device_class = entity.deviceClass;
  if (entity.unit !== undefined) config.unit_of_measurement = entity.unit;
  const deviceBlock: Record<string, unknown> = {
    identifiers: [`meter-gateway-${device.systemId}`],
    name: device.name,
    model: device.model,
    sw_version: device.firmware,
  };
  if (device.configurationUrl !== undefined) deviceBlock.configuration_url = device.configurationUrl;
  config.device = deviceBlock;
  config.origin = { name: 'meter-gateway', sw_version: device.firmware };
  return config;
}
