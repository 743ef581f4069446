import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { registerCoreRoutes } from '../../src/http/server.js';
import { buildLivePayload } from '../../src/reading/live.js';
import { QUANTITY_BY_OBIS } from '../../src/reading/quantities.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { buildTemplateVariables } from '../../src/reading/template-variables.js';
import { entitiesOf, stateOf } from '../../src/mqtt/ha-meter-entities.js';
import { RegisterImage } from '../../src/modbus/encoder.js';
import { validateLayout } from '../../src/modbus/layout-validate.js';
import { meterSamples, type Samples } from '../../src/metrics/meter-samples.js';
import { meterFamilies } from '../../src/metrics/families.js';
import { CSV_COLUMNS } from '../../src/device/sd-logger.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';

/**
 * The grid frequency (OBIS 1-0:14.7.0, Hz) is a quantity of the one table: every consumer of the table
 * carries it when the meter measures it (an SDM630's 30071, SML and IEC 62056-21 meters) and leaves it
 * out when the meter has none (DSMR), so the device-compatible report of a DSMR meter is unchanged.
 */

/** An SDM630 as the Modbus meter source reads it, with its frequency. */
function sdm630(receivedAt: number): Reading {
  return {
    receivedAt,
    protocol: 'MODBUS',
    identity: { vendor: 'Eastron', model: 'SDM630' },
    mbus: [],
    values: valuesOf({
      '1.7.0': [1.2, 'kW'],
      '2.7.0': [0, 'kW'],
      '32.7.0': [230.1, 'V'],
      '14.7.0': [49.98, 'Hz'],
      '1.8.0': [1520.25, 'kWh'],
    }),
  };
}

/** A DSMR meter: no frequency. */
function dsmr(receivedAt: number): Reading {
  const reading = sdm630(receivedAt);
  const values = new Map(reading.values);
  values.delete('14.7.0');
  return { ...reading, protocol: 'DSMR', values };
}

async function rig(t: TestContext): Promise<HttpTestContext> {
  const http = await startHttpContext({ routes: (router, ctx) => registerCoreRoutes(router, ctx) });
  t.after(() => http.close());
  return http;
}

async function report(http: HttpTestContext): Promise<{ report: Record<string, unknown> }> {
  const response = await fetch(`${http.baseUrl}/api/v1/report`);
  assert.equal(response.status, 200);
  return (await response.json()) as { report: Record<string, unknown> };
}

test("the primary's /api/v1/report carries frequency when the meter measures it, and only then", async (t) => {
  const http = await rig(t);
  http.ctx.store.ingest(sdm630(http.clock.now()));
  assert.equal((await report(http)).report.frequency, 49.98);
  http.ctx.store.ingest(dsmr(http.clock.now()));
  assert.equal('frequency' in (await report(http)).report, false);
});

test('/metrics: one meter_frequency_hertz series from the table, none for a meter without it', async (t) => {
  const http = await rig(t);
  const names = meterFamilies().map((family) => family.name);
  assert.equal(names.filter((name) => name === 'meter_frequency_hertz').length, 1);
  http.ctx.store.ingest(sdm630(http.clock.now()));
  const samples: Samples = new Map();
  meterSamples(samples, { id: 'main', store: http.ctx.store }, http.clock.now());
  assert.deepEqual(samples.get('meter_frequency_hertz'), [{ labels: { meter: 'main' }, value: 49.98 }]);
  http.ctx.store.ingest(dsmr(http.clock.now()));
  const without: Samples = new Map();
  meterSamples(without, { id: 'main', store: http.ctx.store }, http.clock.now());
  assert.equal(without.has('meter_frequency_hertz'), false);
});

test('MQTT template variable 14_7_0 and the Home Assistant frequency sensor in Hz', () => {
  const input = {
    meter: { status: 'OK', interface: 'RS485', identity: {} },
    system: { id: 'ECC9FF5C7F14', model: 'm', firmware: '1', bootId: 'b', bootTime: 0 },
    systemName: 'gw',
    convFactor: undefined,
    wifi: {},
    now: 1000,
  } as const;
  assert.equal(buildTemplateVariables({ ...input, reading: sdm630(1000) }).get('14_7_0'), 49.98);
  assert.equal(buildTemplateVariables({ ...input, reading: dsmr(1000) }).get('14_7_0'), null);

  const entities = entitiesOf(sdm630(1000));
  assert.deepEqual(
    entities.find((entity) => entity.key === 'frequency'),
    {
      key: 'frequency',
      name: 'Grid frequency',
      device: 'meter',
      stateClass: 'measurement',
      deviceClass: 'frequency',
      unit: 'Hz',
    },
  );
  assert.equal(stateOf(sdm630(1000), entities).frequency, 49.98);
  assert.equal(
    entitiesOf(dsmr(1000)).some((entity) => entity.key === 'frequency'),
    false,
  );
});

test('Modbus register id 14.7.0: Hz as the layout gives it, NaN while stale (an instantaneous value)', () => {
  const layout = validateLayout([
    {
      start_address: 0,
      registers: [
        { id: '14.7.0', type: 'int', scaler: 2 },
        { id: '14.7.0', type: 'float' },
      ],
    },
  ]);
  assert.ok(layout.ok, JSON.stringify(layout));
  const image = new RegisterImage();
  image.setLayout(layout.layout);
  const system = { id: 'ECC9FF5C7F14', model: 'm', firmware: '1', bootId: 'b', bootTime: 0 };
  const source = (reading: Reading | undefined) => ({
    reading,
    identity: {},
    system,
    convFactor: 1,
    now: 1000,
  });
  image.rebuild(source(sdm630(1000)));
  assert.equal(image.bytes.readInt32BE(0), 4998);
  assert.equal(Math.round(image.bytes.readFloatBE(4) * 100), 4998);
  image.rebuild(source(undefined));
  assert.equal(image.bytes.readInt32BE(0), 0);
  assert.ok(Number.isNaN(image.bytes.readFloatBE(4)));
});

test('CSV has a frequency column; the live payload keeps the device keys (no frequency)', () => {
  assert.ok(CSV_COLUMNS.includes('frequency'));
  assert.equal(QUANTITY_BY_OBIS.get('14.7.0')?.live, undefined);
  const live = buildLivePayload(sdm630(1000), 0);
  assert.equal(
    Object.values(live).some((value) => value === 49.98),
    false,
  );
});
