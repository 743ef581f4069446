import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dataOf } from '../../src/device/homewizard/api-v1.js';
import { emStatus } from '../../src/device/shelly/em-status.js';
import { gridPowerW } from '../../src/export-limiter/limiter.js';
import { meterSamples, type Samples } from '../../src/metrics/meter-samples.js';
import { gridValues } from '../../src/modbus-protocol/profiles/grid-values.js';
import { REGISTER_IDS } from '../../src/modbus/register-ids.js';
import { withDerivedValues } from '../../src/reading/derive.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { buildTemplateVariables } from '../../src/reading/template-variables.js';

/**
 * Every consumer of the meter view serves one active power and one current sign for the same
 * reading (docs/architecture.md#meter-view), whichever registers the meter sends.
 */

const SYSTEM = { id: 'B827EB12A4F0', model: 'm', firmware: '1.0.0', bootId: 'b', bootTime: 0 };

function reading(entries: Record<string, [number, string]>): Reading {
  return withDerivedValues({
    receivedAt: 1_700_000_000_000,
    protocol: 'SML',
    identity: {},
    values: valuesOf(entries),
    mbus: [],
  });
}

interface Served {
  totalW: unknown;
  l1W: unknown;
  l1A: unknown;
}

function modbusProfile(r: Reading): Served {
  const values = gridValues({ reading: r, identity: {}, system: SYSTEM, direction: 'import_positive' });
  return { totalW: values.power, l1W: values.phasePower[0], l1A: values.current[0] };
}

function modbusWhatwatt(r: Reading): Served {
  const definition = REGISTER_IDS.get('current.l1');
  assert.ok(definition?.kind === 'numeric');
  const l1A = definition.value({
    reading: r,
    identity: {},
    system: SYSTEM,
    convFactor: 1,
    now: r.receivedAt,
  });
  return { totalW: undefined, l1W: undefined, l1A };
}

function shelly(r: Reading): Served {
  const status = emStatus(r);
  return { totalW: status.total_act_power, l1W: status.a_act_power, l1A: status.a_current };
}

function homewizard(r: Reading): Served {
  const data = dataOf(r, { ssid: '' });
  return { totalW: data.active_power_w, l1W: data.active_power_l1_w, l1A: data.active_current_l1_a };
}

function metrics(r: Reading): Served {
  const samples: Samples = new Map();
  const counters = {
    framesOk: 1,
    crcErrors: 0,
    parseErrors: 0,
    overflows: 0,
    encryptionErrors: 0,
    timeouts: 0,
    bytes: 0,
  };
  meterSamples(
    samples,
    {
      id: 'main',
      store: {
        latestAt: () => r,
        meterAt: () => ({ status: 'OK', interface: 'OPTICAL', identity: {} }),
        lastReading: r,
        counters,
      },
    },
    r.receivedAt,
  );
  const total = samples.get('meter_active_power_watts')?.[0]?.value;
  const l1 = samples.get('meter_phase_active_power_watts')?.find((s) => s.labels.phase === 'l1')?.value;
  return { totalW: total, l1W: l1, l1A: undefined };
}

function template(r: Reading): Served {
  const vars = buildTemplateVariables({
    reading: r,
    meter: { status: 'OK', interface: 'OPTICAL', identity: {} },
    system: SYSTEM,
    systemName: 'x',
    convFactor: 1,
    wifi: {},
    now: r.receivedAt,
  });
  return { totalW: undefined, l1W: undefined, l1A: vars.get('s31_7_0') };
}

test('a meter sending its signed power beside an import register alone: every consumer serves the export', () => {
  // An SML meter with 16.7.0 / 36.7.0 (signed) and 1.7.0 / 21.7.0 (import only, 0 while it
  // exports): import minus export alone would read 0 W and a positive current here.
  const r = reading({
    '16.7.0': [-0.7, 'kW'],
    '1.7.0': [0, 'kW'],
    '36.7.0': [-0.7, 'kW'],
    '21.7.0': [0, 'kW'],
    '31.7.0': [3, 'A'],
  });
  assert.deepEqual(modbusProfile(r), { totalW: -700, l1W: -700, l1A: 3 });
  assert.deepEqual(modbusWhatwatt(r).l1A, -3);
  assert.deepEqual(shelly(r), { totalW: -700, l1W: -700, l1A: 3 });
  assert.deepEqual(homewizard(r), { totalW: -700, l1W: -700, l1A: -3 });
  assert.deepEqual(metrics(r), { totalW: -700, l1W: -700, l1A: undefined });
  assert.equal(template(r).l1A, -3);
  assert.equal(gridPowerW(r), -700);
});

test('a DSMR meter exporting on L2: every consumer serves the same signs', () => {
  const r = reading({
    '1.7.0': [0.2, 'kW'],
    '2.7.0': [0, 'kW'],
    '21.7.0': [0.6, 'kW'],
    '22.7.0': [0, 'kW'],
    '41.7.0': [0, 'kW'],
    '42.7.0': [0.4, 'kW'],
    '31.7.0': [2.6, 'A'],
    '51.7.0': [1.7, 'A'],
  });
  assert.deepEqual(modbusProfile(r), { totalW: 200, l1W: 600, l1A: 2.6 });
  assert.deepEqual(shelly(r), { totalW: 200, l1W: 600, l1A: 2.6 });
  assert.deepEqual(homewizard(r), { totalW: 200, l1W: 600, l1A: 2.6 });
  assert.deepEqual(metrics(r), { totalW: 200, l1W: 600, l1A: undefined });
  assert.equal(gridPowerW(r), 200);
  assert.equal(emStatus(r).b_act_power, -400);
  assert.equal(dataOf(r, { ssid: '' }).active_current_l2_a, -1.7);
  assert.equal(
    gridValues({ reading: r, identity: {}, system: SYSTEM, direction: 'import_positive' }).phasePower[1],
    -400,
  );
});
