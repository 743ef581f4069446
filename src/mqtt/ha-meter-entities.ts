import { QUANTITIES, type HaStateClass } from '../reading/quantities.js';
import type { Reading } from '../reading/reading.js';
import { roundSignificant } from '../reading/units.js';
import type { HaEntity } from './ha-entity.js';
import { mbusEntity } from './ha-mbus.js';

/**
 * The meters' Home Assistant sensors (docs/architecture.md#home-assistant-discovery): one per
 * quantity of the quantity table the meter actually sent (with its `ha` classes), the signed net
 * power, the tariff, and one per M-Bus channel (gas, water, heat) with a cumulative value. Pure
 * functions.
 */

const TARIFF_ENTITY: HaEntity = { key: 'tariff', name: 'Tariff', device: 'meter' };
const IMPORT = 'power_active_positive';
const EXPORT = 'power_active_negative';

const isTotal = (stateClass: HaStateClass | undefined): boolean =>
  stateClass === 'total' || stateClass === 'total_increasing';
const QUANTITY_BY_KEY = new Map(QUANTITIES.map((quantity) => [quantity.key, quantity]));

/**
 * Net grid power, import minus export (negative while feeding in), in the unit and classes of the
 * other active power sensors; announced when the meter sends both directions.
 */
const NET_POWER_ENTITY: HaEntity = {
  key: 'power_active_net',
  name: 'Active power net',
  device: 'meter',
  deviceClass: QUANTITY_BY_KEY.get(IMPORT)!.ha.deviceClass!,
  stateClass: QUANTITY_BY_KEY.get(IMPORT)!.ha.stateClass,
  unit: QUANTITY_BY_KEY.get(IMPORT)!.ha.unit,
};

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
  const keys = new Set(entities.map((entity) => entity.key));
  if (keys.has(IMPORT) && keys.has(EXPORT)) entities.push(NET_POWER_ENTITY);
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
  if (key === NET_POWER_ENTITY.key) {
    const [imported, exported] = [valueOf(reading, IMPORT), valueOf(reading, EXPORT)];
    // Rounded like the derived values: 0.1 - 0.3 is -0.2, not -0.19999999999999998.
    return imported === undefined || exported === undefined
      ? undefined
      : roundSignificant(imported - exported);
  }
  return reading.mbus.find((channel) => `mbus_${channel.bus}` === key)?.cumulative;
}

/**
 * The flat state JSON of a reading: entity key -> value. A total (state class total or
 * total_increasing) of 0 is a value (a reactive-energy or export register that never counted) and
 * is published, but not once the same total has been above 0 (`totalsAboveZero`, kept by the
 * caller and updated here): a meter register does not return to 0, and Home Assistant would book
 * the drop as a meter reset, counting the whole register again in the energy dashboard. Such a
 * key is left out: it renders as '' in the value template, which HA ignores for numeric sensors
 * (keeps the last state). Stale readings never get here (docs/architecture.md#home-assistant-discovery).
 */
export function stateOf(
  reading: Reading,
  entities: readonly HaEntity[] = entitiesOf(reading),
  totalsAboveZero: Set<string> = new Set(),
): Record<string, number> {
  const state: Record<string, number> = {};
  for (const entity of entities) {
    const value = valueOf(reading, entity.key);
    if (value === undefined || !Number.isFinite(value)) continue;
    if (isTotal(entity.stateClass)) {
      if (value === 0 && totalsAboveZero.has(entity.key)) continue;
      if (value > 0) totalsAboveZero.add(entity.key);
    }
    state[entity.key] = value;
  }
  return state;
}
