import type { MbusReading } from '../reading/reading.js';
import type { HaEntity } from './ha-entity.js';

/** EN 13757-3 §8.4.1 device types: 03 gas, 04/0C heat, 06 warm water, 07 water, 15 hot, 16 cold water. */
export const MBUS_GAS = 0x03;
export const MBUS_WATER: ReadonlySet<number> = new Set([0x06, 0x07, 0x15, 0x16]);
export const MBUS_HEAT: ReadonlySet<number> = new Set([0x04, 0x0c]);

// A set, not an object: the unit comes from the meter, and `constructor` must not find Object's.
const HA_ENERGY_UNITS: ReadonlySet<string> = new Set(['GJ', 'MJ', 'kWh', 'MWh']);

/** The sensor of an M-Bus channel with a cumulative value: gas, water or volume in m³, heat in energy units. */
export function mbusEntity(channel: MbusReading): HaEntity | undefined {
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
  const energyUnit =
    channel.unit !== undefined && HA_ENERGY_UNITS.has(channel.unit) ? channel.unit : undefined;
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
