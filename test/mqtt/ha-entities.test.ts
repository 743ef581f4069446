import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  configTopic,
  discoveryConfig,
  entitiesOf,
  METER_STATUS_ENTITY,
  stateOf,
  type DeviceInfo,
  type MeterFacts,
} from '../../src/mqtt/ha-entities.js';
import { gatewayTopics } from '../../src/mqtt/discovery.js';
import { QUANTITIES } from '../../src/reading/quantities.js';
import { valuesOf, type MbusReading, type Reading } from '../../src/reading/reading.js';

/**
 * Home Assistant's rules for sensors (homeassistant/components/sensor/const.py DEVICE_CLASS_UNITS and
 * DEVICE_CLASS_STATE_CLASSES, HA 2025.6+ where reactive_energy, kvar and kVA exist). `undefined`
 * means "no unit_of_measurement". A config outside these rules makes HA log a warning and leaves
 * the entity out of long-term statistics (and the energy dashboard).
 */
const HA_SENSOR_RULES: Record<string, { units: Array<string | undefined>; stateClasses: string[] }> = {
  energy: { units: ['Wh', 'kWh', 'MWh', 'GWh', 'MJ', 'GJ'], stateClasses: ['total', 'total_increasing'] },
  power: { units: ['W', 'kW', 'MW'], stateClasses: ['measurement'] },
  reactive_power: { units: ['var', 'kvar'], stateClasses: ['measurement'] },
  reactive_energy: { units: ['varh', 'kvarh'], stateClasses: ['total', 'total_increasing'] },
  apparent_power: { units: ['VA', 'kVA'], stateClasses: ['measurement'] },
  voltage: { units: ['mV', 'V', 'kV'], stateClasses: ['measurement'] },
  current: { units: ['mA', 'A'], stateClasses: ['measurement'] },
  power_factor: { units: [undefined, '%'], stateClasses: ['measurement'] },
  frequency: { units: ['Hz', 'kHz', 'MHz', 'GHz'], stateClasses: ['measurement'] },
  gas: { units: ['m³', 'ft³', 'CCF'], stateClasses: ['total', 'total_increasing'] },
  water: { units: ['m³', 'L', 'gal', 'ft³', 'CCF'], stateClasses: ['total', 'total_increasing'] },
  volume: { units: ['mL', 'L', 'm³', 'ft³', 'CCF', 'gal'], stateClasses: ['total', 'total_increasing'] },
};

/** The energy dashboard's grid import / export and gas sources (HA energy/validate.py). */
const ENERGY_DASHBOARD: Record<string, { units: string[]; stateClasses: string[] }> = {
  energy: { units: ['Wh', 'kWh', 'MWh', 'GJ', 'MJ'], stateClasses: ['total', 'total_increasing'] },
  gas: { units: ['m³', 'ft³', 'CCF'], stateClasses: ['total', 'total_increasing'] },
};

function haRuleViolation(config: Record<string, unknown>): string | undefined {
  const deviceClass = config.device_class as string | undefined;
  if (deviceClass === undefined) return 'no device_class';
  const rule = HA_SENSOR_RULES[deviceClass];
  if (!rule) return `device_class ${deviceClass} not in the rule table`;
  const unit = config.unit_of_measurement as string | undefined;
  if ('unit_of_measurement' in config && typeof unit !== 'string') return 'unit_of_measurement not a string';
  if (!rule.units.includes(unit)) return `unit ${JSON.stringify(unit)} not allowed for ${deviceClass}`;
  if (!rule.stateClasses.includes(config.state_class as string))
    return `state_class ${String(config.state_class)} not allowed for ${deviceClass}`;
  return undefined;
}

const device: DeviceInfo = {
  systemId: 'ECC9FF5C7F14',
  name: 'gw',
  model: 'Pi',
  firmware: '1.2.3',
  configurationUrl: 'http://192.0.2.7:8080/',
};
const topics = gatewayTopics('ECC9FF5C7F14', 'homeassistant');
const meters: MeterFacts = {
  identity: { prefix: 'ISK', vendor: 'Iskraemeco', model: 'MT382-1000', id: 'E0043007123456715' },
  mbus: [{ bus: 1, deviceType: 3, meterId: 'G0012345678901234' }],
};

function readingWith(values: Record<string, [number, string]>, mbus: MbusReading[] = []): Reading {
  return { receivedAt: 0, protocol: 'SML', identity: {}, values: valuesOf(values), mbus };
}

/** Every table quantity with a non-zero value in its canonical unit. */
const everything = readingWith(
  Object.fromEntries(QUANTITIES.map((q, i) => [q.obis, [i + 1, q.unit] as [number, string]])),
);

test('ha rules: the checker rejects configs HA rejects (it can fail)', () => {
  assert.match(
    haRuleViolation({ device_class: 'energy', unit_of_measurement: 'kWh', state_class: 'measurement' })!,
    /state_class/,
  );
  assert.match(
    haRuleViolation({ device_class: 'power', unit_of_measurement: 'kWh', state_class: 'measurement' })!,
    /unit/,
  );
  assert.match(
    haRuleViolation({ device_class: 'power_factor', unit_of_measurement: '', state_class: 'measurement' })!,
    /unit/,
  );
  assert.match(
    haRuleViolation({
      device_class: 'reactive_power',
      unit_of_measurement: 'kVAr',
      state_class: 'measurement',
    })!,
    /unit/,
  );
  assert.equal(haRuleViolation({ device_class: 'power_factor', state_class: 'measurement' }), undefined);
});

test('ha rules: every quantity of the table is announced with a class, unit and state class HA accepts', () => {
  const entities = entitiesOf(everything);
  assert.equal(entities.length, QUANTITIES.length + 1, 'one entity per table quantity, plus the net power');
  for (const entity of entities) {
    const violation = haRuleViolation(discoveryConfig(entity, device, topics, meters));
    assert.equal(violation, undefined, `${entity.key}: ${violation}`);
  }
});

test('ha rules: energy import and export totals fit the energy dashboard', () => {
  const byKey = new Map(
    entitiesOf(everything).map((entity) => [entity.key, discoveryConfig(entity, device, topics, meters)]),
  );
  for (const key of [
    'energy_active_positive',
    'energy_active_negative',
    'energy_active_positive_t1',
    'energy_active_negative_t2',
  ]) {
    const config = byKey.get(key)!;
    const rule = ENERGY_DASHBOARD[config.device_class as string]!;
    assert.ok(rule, `${key} has a dashboard device class`);
    assert.ok(rule.units.includes(config.unit_of_measurement as string), `${key} unit`);
    assert.equal(config.state_class, 'total_increasing', key);
  }
});

test('ha rules: M-Bus gas, water and heat channels', () => {
  const reading = readingWith({}, [
    { bus: 1, deviceType: 3, cumulative: 4521.338, unit: 'm3' },
    { bus: 2, deviceType: 7, cumulative: 312.5, unit: 'm3' },
    { bus: 3, deviceType: 4, cumulative: 12.25, unit: 'GJ' },
    { bus: 4, deviceType: 3, unit: 'm3' },
    { bus: 5, deviceType: 3, cumulative: 1, unit: 'ft3-unknown' },
  ]);
  const configs = entitiesOf(reading).map((entity) => discoveryConfig(entity, device, topics, meters));
  assert.deepEqual(
    configs.map((c) => [c.unique_id, c.device_class, c.unit_of_measurement, c.state_class]),
    [
      ['meter-gateway-ECC9FF5C7F14-mbus_1', 'gas', 'm³', 'total_increasing'],
      ['meter-gateway-ECC9FF5C7F14-mbus_2', 'water', 'm³', 'total_increasing'],
      ['meter-gateway-ECC9FF5C7F14-mbus_3', 'energy', 'GJ', 'total_increasing'],
    ],
  );
  for (const config of configs) assert.equal(haRuleViolation(config), undefined);
  assert.ok(ENERGY_DASHBOARD.gas!.units.includes(configs[0]!.unit_of_measurement as string));
});

test('discovery config: ids, topics, template, device and origin blocks', () => {
  const [entity] = entitiesOf(readingWith({ '13.7.0': [0.98, ''] }));
  const config = discoveryConfig(entity!, device, topics, meters);
  assert.deepEqual(config, {
    name: 'Power factor',
    unique_id: 'meter-gateway-ECC9FF5C7F14-power_factor',
    state_topic: 'meter-gateway/ECC9FF5C7F14/state',
    value_template: "{{ value_json.power_factor | default('') }}",
    availability_topic: 'meter-gateway/ECC9FF5C7F14/availability',
    payload_available: 'online',
    payload_not_available: 'offline',
    state_class: 'measurement',
    device_class: 'power_factor',
    device: {
      identifiers: ['meter-gateway-ECC9FF5C7F14-meter'],
      name: 'Electricity meter',
      via_device: 'meter-gateway-ECC9FF5C7F14',
      manufacturer: 'Iskraemeco',
      model: 'MT382-1000',
      serial_number: 'E0043007123456715',
    },
    origin: { name: 'meter-gateway', sw_version: '1.2.3' },
  });
  assert.equal(
    configTopic('homeassistant', 'ECC9FF5C7F14', 'power_factor'),
    'homeassistant/sensor/ECC9FF5C7F14/power_factor/config',
  );
});

test('entities: only quantities the meter sent, in the table unit', () => {
  const reading = readingWith({
    '1.8.0': [5, 'kWh'],
    '1.7.0': [1500, 'W'],
    '32.7.0': [230, 'V'],
    '99.99.9': [1, 'kW'],
  });
  assert.deepEqual(
    entitiesOf(reading).map((e) => e.key),
    ['voltage_l1', 'energy_active_positive'],
  );
});

test('state: flat JSON by key; a total of 0 is a value, unless that total was above 0 before', () => {
  const reading = readingWith(
    {
      '1.8.0': [18734.512, 'kWh'],
      '2.8.0': [0, 'kWh'],
      '1.7.0': [0, 'kW'],
      '2.7.0': [0.5, 'kW'],
      '13.7.0': [0.97, ''],
    },
    [{ bus: 1, deviceType: 3, cumulative: 0, unit: 'm3' }],
  );
  const aboveZero = new Set<string>();
  assert.deepEqual(stateOf(reading, entitiesOf(reading), aboveZero), {
    power_active_positive: 0,
    power_active_negative: 0.5,
    power_active_net: -0.5,
    power_factor: 0.97,
    energy_active_positive: 18734.512,
    energy_active_negative: 0,
    mbus_1: 0,
  });
  // A kvarh register that reads 0 is published as 0 (Home Assistant shows 0, not unknown).
  const reactive = readingWith({ '3.8.0': [0, 'kvarh'], '4.8.0': [0, 'kvarh'] });
  assert.deepEqual(stateOf(reactive), { energy_reactive_positive: 0, energy_reactive_negative: 0 });
  // The same total dropping to 0 after it was above 0 is a glitch, not a value: left out.
  const dropped = readingWith({ '1.8.0': [0, 'kWh'], '2.8.0': [0, 'kWh'] });
  assert.deepEqual(stateOf(dropped, entitiesOf(dropped), aboveZero), { energy_active_negative: 0 });
  const gas = readingWith({}, [{ bus: 1, deviceType: 3, cumulative: 4521.338, unit: 'm3' }]);
  assert.deepEqual(stateOf(gas), { mbus_1: 4521.338 });
});

test('devices: the meter and each M-Bus meter have their own HA device via the gateway', () => {
  const reading = readingWith({ '1.8.0': [5, 'kWh'] }, [
    { bus: 1, deviceType: 3, cumulative: 4521.338, unit: 'm3' },
  ]);
  const byKey = new Map(
    entitiesOf(reading).map((entity) => [entity.key, discoveryConfig(entity, device, topics, meters).device]),
  );
  assert.deepEqual(byKey.get('mbus_1'), {
    identifiers: ['meter-gateway-ECC9FF5C7F14-mbus-1'],
    name: 'Gas meter',
    via_device: 'meter-gateway-ECC9FF5C7F14',
    serial_number: 'G0012345678901234',
  });
  assert.deepEqual(discoveryConfig(METER_STATUS_ENTITY, device, topics, meters), {
    name: 'Meter status',
    unique_id: 'meter-gateway-ECC9FF5C7F14-meter_status',
    state_topic: 'meter-gateway/ECC9FF5C7F14/meter_status',
    expire_after: 180,
    entity_category: 'diagnostic',
    device_class: 'enum',
    options: [
      'NOT CONNECTED',
      'NO DATA',
      'RECOGNITION',
      'OK',
      'NOT RECOGNIZED',
      'ENCRYPTION KEY',
      'KEY REQUIRED',
    ],
    device: {
      identifiers: ['meter-gateway-ECC9FF5C7F14'],
      name: 'gw',
      manufacturer: 'meter-gateway',
      model: 'Pi',
      sw_version: '1.2.3',
      configuration_url: 'http://192.0.2.7:8080/',
    },
    origin: { name: 'meter-gateway', sw_version: '1.2.3' },
  });
  // A meter that does not name itself: only the keys that are known.
  const anonymous = discoveryConfig(entitiesOf(reading)[0]!, device, topics, { identity: {}, mbus: [] });
  assert.deepEqual(anonymous.device, {
    identifiers: ['meter-gateway-ECC9FF5C7F14-meter'],
    name: 'Electricity meter',
    via_device: 'meter-gateway-ECC9FF5C7F14',
  });
});

test('entities: the tariff, on the meter device, without statistics', () => {
  const reading = { ...readingWith({ '1.8.1': [5, 'kWh'] }), tariff: 2 };
  const tariff = entitiesOf(reading).find((entity) => entity.key === 'tariff');
  assert.deepEqual(tariff, { key: 'tariff', name: 'Tariff', device: 'meter' });
  assert.equal(stateOf(reading).tariff, 2);
  const config = discoveryConfig(tariff!, device, topics, meters);
  assert.equal('state_class' in config, false);
  assert.equal(config.value_template, "{{ value_json.tariff | default('') }}");
});
