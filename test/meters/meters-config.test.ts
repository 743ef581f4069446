import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, ConfigStore } from '../../src/config/config-store.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { parseExpression } from '../../src/reading/meter-expression.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { send } from '../http/http-client.js';
import { startHttpContext } from '../helpers/http-context.js';

registerConfigFormats();

/**
 * `meters[]`: the further meters in the one schema, checked the same way in the admin's file, the
 * environment and the settings API; a refused write stores nothing.
 */

const PV = { id: 'pv', name: 'PV inverter', role: 'pv', source: 'modbus-rtu:/dev/ttyUSB0?unit=1&baud=9600' };
const EV = {
  id: 'ev',
  name: 'Wallbox',
  role: 'ev',
  source: 'modbus-rtu:/dev/ttyUSB0?unit=2&baud=9600',
  timeout: 5,
};
const HOUSE = { id: 'house', name: 'House', role: 'consumer', expression: 'main - ev + pv' };

function loadWith(meters: unknown, extra: Record<string, unknown> = {}): ConfigStore {
  const dir = mkdtempSync(join(tmpdir(), 'mg-meters-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ meters, ...extra }));
  try {
    return ConfigStore.load({ configFile: file, stateDir: join(dir, 'state'), env: {} });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function refusal(meters: unknown, extra: Record<string, unknown> = {}): string {
  try {
    loadWith(meters, extra);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail('expected the config to be refused');
}

test('expressions: +, - and constant factors; a meter named twice adds up; bad syntax is refused', () => {
  assert.deepEqual(parseExpression('main - ev'), [
    { id: 'main', factor: 1 },
    { id: 'ev', factor: -1 },
  ]);
  assert.deepEqual(parseExpression('-2 * pv + main*0.5 - pv'), [
    { id: 'pv', factor: -3 },
    { id: 'main', factor: 0.5 },
  ]);
  for (const bad of ['', 'main +', 'main ev', '3', 'main * ev', 'main / 2', '2 * 3'])
    assert.throws(() => parseExpression(bad), `${JSON.stringify(bad)} must be refused`);
});

test('admin file: a valid list loads; the primary and other sections are as before', () => {
  const store = loadWith([PV, EV, HOUSE]);
  assert.deepEqual(store.config.meters, [PV, EV, HOUSE]);
  assert.equal(store.config.meter.source, 'simulator');
  assert.deepEqual(loadWith([]).config.meters, []);
});

test('admin file: ids, main, duplicates, roles, sources, timeouts and expressions each name their field', () => {
  const cases: Array<[unknown, RegExp]> = [
    [[{ ...PV, id: 'PV' }], /meters\[0\]\.id: must match/],
    [[{ ...PV, id: 'main' }], /meters\[0\]\.id: "main" is reserved/],
    [[PV, { ...EV, id: 'pv' }], /meters\[1\]\.id: "pv" is already the id of meters\[0\]/],
    [[{ ...PV, role: 'solar' }], /meters\[0\]\.role: must be one of grid, pv, battery, ev, heat_pump/],
    [[{ ...PV, source: 'modbus-rtu:/dev/ttyUSB0?unit=0' }], /meters\[0\]\.source: unit must be/],
    [[{ ...PV, timeout: 0 }], /meters\[0\]\.timeout: must be an integer in 1\.\.3600/],
    [[{ ...PV, colour: 'red' }], /meters\[0\]\.colour: unknown key/],
    [[{ id: 'x', name: 'X', role: 'other' }], /meters\[0\]: needs a source/],
    [[{ ...HOUSE, expression: 'main -' }], /meters\[0\]\.expression: expected a meter id/],
    [
      [{ ...HOUSE, expression: 'main - heatpump' }],
      /meters\[0\]\.expression: unknown meter "heatpump" \(known: main, house\)/,
    ],
    [[{ ...HOUSE, expression: 'main - house' }], /meters\[0\]\.expression: refers to its own meter "house"/],
    [
      [
        { id: 'a', name: 'A', role: 'other', expression: 'b' },
        { id: 'b', name: 'B', role: 'other', expression: 'main + a' },
      ],
      /virtual meters refer to each other in a cycle: a -> b -> a/,
    ],
    [
      [PV, { ...EV, source: 'modbus-rtu:/dev/ttyUSB0?unit=2&baud=19200' }],
      /meters\[1\]\.source \(19200 baud.*\) and meters\[0\]\.source \(9600 baud.*\) claim \/dev\/ttyUSB0 with different line settings/,
    ],
    [[PV, { ...EV, source: 'modbus-rtu:/dev/ttyUSB0?unit=1' }], /both poll unit 1 on \/dev\/ttyUSB0/],
    ['pv', /meters: must be an array/],
  ];
  for (const [meters, message] of cases) assert.match(refusal(meters), message);
});

test('the primary meter and a further meter cannot claim one serial port differently', () => {
  const primary = { meter: { source: 'serial:/dev/ttyUSB0?protocol=dsmr' } };
  assert.match(refusal([PV], primary), /meters\[0\]\.source and meter\.source both open \/dev\/ttyUSB0/);
  const modbusPrimary = { meter: { source: 'modbus-rtu:/dev/ttyUSB0?unit=5&baud=19200' } };
  assert.match(refusal([PV], modbusPrimary), /claim \/dev\/ttyUSB0 with different line settings/);
  const sameBus = { meter: { source: 'modbus-rtu:/dev/ttyUSB0?unit=5&baud=9600' } };
  assert.equal(loadWith([PV], sameBus).config.meters.length, 1);
});

test('environment: METER_GATEWAY_METERS takes the list as JSON and is checked like the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-meters-env-'));
  try {
    const store = ConfigStore.load({ stateDir: dir, env: { METER_GATEWAY_METERS: JSON.stringify([PV]) } });
    assert.deepEqual(store.config.meters, [PV]);
    assert.throws(
      () => ConfigStore.load({ stateDir: dir, env: { METER_GATEWAY_METERS: JSON.stringify([PV, PV]) } }),
      /meters\[1\]\.id: "pv" is already/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('settings API: PUT stores meters; each bad list is a 400 naming the field and stores nothing; POST without meters keeps them', async (t) => {
  const api = await startHttpContext({ routes: (router, ctx) => registerCoreRoutes(router, ctx) });
  t.after(() => api.close());
  const put = (body: unknown) =>
    send(api.baseUrl, 'PUT', '/api/v1/settings', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const stored = join(api.stateDir, 'meter.json');
  const good = await put({ meters: [PV, EV, HOUSE] });
  assert.equal(good.status, 200, good.text);
  assert.deepEqual(good.json().meters, [PV, EV, HOUSE]);
  assert.deepEqual(JSON.parse(readFileSync(stored, 'utf8')).meters, [PV, EV, HOUSE]);
  const before = readFileSync(stored, 'utf8');
  const bad: Array<[unknown, RegExp]> = [
    [[PV, PV], /meters\[1\]\.id: "pv" is already/],
    [[{ ...HOUSE, expression: 'house' }], /refers to its own meter/],
    [
      [
        { id: 'a', name: 'A', role: 'other', expression: 'b' },
        { id: 'b', name: 'B', role: 'other', expression: 'a' },
      ],
      /cycle: a -> b -> a/,
    ],
    [[{ ...HOUSE, expression: 'main - nope' }], /unknown meter "nope"/],
    // A constant that parses to Infinity, alone or as a sum of factors of one meter.
    [
      [{ ...HOUSE, expression: '1e999 * main' }],
      /meters\[0\]\.expression: the constant 1e999 is not a finite/,
    ],
    [
      [{ ...HOUSE, expression: '1e308 * main + 1e308 * main' }],
      /meters\[0\]\.expression: the factors of main add up to no finite number/,
    ],
    [
      [PV, { ...EV, source: 'modbus-rtu:/dev/ttyUSB0?unit=2&baud=19200' }],
      /meters\[1\]\.source .* and meters\[0\]\.source .* different line settings/,
    ],
  ];
  for (const [meters, message] of bad) {
    const reply = await put({ meters, system: { name: 'changed' } });
    assert.equal(reply.status, 400, reply.text);
    const body = reply.json();
    assert.equal(body.error, 'validation_failed');
    const fields = body.details.fields as Array<{ field: string; message: string }>;
    assert.deepEqual(
      fields.map((issue) => issue.field),
      ['meters'],
    );
    assert.match(fields[0]!.message, message);
    assert.equal(readFileSync(stored, 'utf8'), before, 'nothing stored');
    assert.equal(api.ctx.config.config.system.name, 'meter-gateway', 'no other field applied either');
  }
  const replaced = await send(api.baseUrl, 'POST', '/api/v1/settings', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ system: { name: 'gw' } }),
  });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual(api.ctx.config.config.meters, [PV, EV, HOUSE]);
  assert.equal(existsSync(stored), true);
  // The primary's port against a further meter's: refused on `meters` through the meter settings too.
  const primary = await send(api.baseUrl, 'PUT', '/api/v1/meter/settings', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ source: 'serial:/dev/ttyUSB0?protocol=dsmr' }),
  });
  assert.equal(primary.status, 400, primary.text);
  assert.match(primary.text, /meter\.source both open \/dev\/ttyUSB0/);
  assert.equal(api.ctx.config.config.meter.source, 'simulator');
});
