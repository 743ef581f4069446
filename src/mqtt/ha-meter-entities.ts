import { QUANTITIES, type HaStateClass } from '../reading/quantities.js';
import type { MbusReading, Reading } from '../reading/reading.js';
import type { HaEntity } from './ha-entities.js';
import { MBUS_GAS, MBUS_HEAT, MBUS_WATER } from './ha-mbus.js';

/**
 * The meters' Home Assistant sensors (docs/architecture.md#home-assistant-discovery): one per
 * quantity of the quantity table the meter actually sent (with its `ha` classes), the tariff, and
 * one per M-Bus channel (gas, water, heat) with a cumulative value. Pure functions.
 */

const TARIFF_ENTITY: HaEntity = { key: 'tariff', name: 'Tariff', device: 'meter' };

const isTotal = (stateClass: HaStateClass | undefined): boolean =>
  stateClass === 'total' || stateClass === 'total_increasing';
const QUANTITY_BY_KEY = new Map(QUANTITIES.map((quantity) => [quantity.key, quantity]));

const HA_ENERGY_UNITS: Record<string, string> = { GJ: 'GJ', MJ: 'MJ', kWh: 'kWh', MWh: 'MWh' };

function mbusEntity(channel: MbusReading): HaEntity | undefined {
  if (channel.cumulative === undefined) return undefined;
  const key = `mbus_${channel.bus}`;
  const type = channel.deviceType;
  if (channel.unit === 'm3') {
    const deviceClass =
      type === MBUS_GAS ? 'gas' : type !== undefined && MBUS_WATER.has(type) ? 'water' : 'volume';
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

function valueOf(reading: Reading, key: string): number | undefined {
  const quantity = QUANTITY_BY_KEY.get(key);
  if (quantity) return reading.values.get(quantity.obis)?.value;
  if (key === TARIFF_ENTITY.key) return tariffOf(reading);
  return reading.mbus.find((channel) => `mbus_${channel.bus}` === key)?.cumulative;
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
    const value = valueOf(reading, entity.key);
    if (value === undefined || !Number.isFinite(value)) continue;
    if (value === 0 && isTotal(entity.stateClass)) continue;
    state[entity.key] = value;
  }
  return state;
}
