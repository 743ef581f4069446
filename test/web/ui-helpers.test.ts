// The web page's pure helpers (src/web/ui, DOM-free modules), run in node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configPath, fieldNameOf, issuesOf, setAt, valueAt } from '../../src/web/ui/fields.js';
import { decimalsOf, formatNumber } from '../../src/web/ui/format.js';

test('formatNumber: finite numbers to fixed decimals, anything else a dash', () => {
  assert.equal(formatNumber(1.23456, 3), '1.235');
  assert.equal(formatNumber(230, 1), '230.0');
  assert.equal(formatNumber(-0.5, 0), '-1');
  for (const missing of [undefined, null, '1.5', Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.equal(formatNumber(missing, 2), '—', String(missing));
  }
});

test('decimalsOf: volts to 0.1, amperes to 0.01, the tariff whole, kW and kWh to three', () => {
  assert.equal(decimalsOf('V_L1'), 1);
  assert.equal(decimalsOf('I_L3'), 2);
  assert.equal(decimalsOf('T'), 0);
  assert.equal(decimalsOf('P_In'), 3);
  assert.equal(decimalsOf('E_In'), 3);
});

test('valueAt reads a dotted path; a missing step or a non-object on the way is undefined', () => {
  const data = { services: { modbus: { profile: 'sdm630', port: 502 } }, empty: null };
  assert.equal(valueAt(data, 'services.modbus.profile'), 'sdm630');
  assert.deepEqual(valueAt(data, 'services.modbus'), { profile: 'sdm630', port: 502 });
  assert.equal(valueAt(data, 'services.mqtt.port'), undefined);
  assert.equal(valueAt(data, 'services.modbus.port.value'), undefined);
  assert.equal(valueAt(data, 'empty.value'), undefined);
  assert.equal(valueAt(undefined, 'a'), undefined);
});

test('setAt creates the objects on the way and replaces what is not an object', () => {
  const body: Record<string, unknown> = { services: { sd: { enable: true } }, system: 'text' };
  setAt(body, 'services.sd.frequency', 15);
  setAt(body, 'services.modbus.enable', false);
  setAt(body, 'system.name', 'Kitchen');
  setAt(body, 'top', 1);
  assert.deepEqual(body, {
    services: { sd: { enable: true, frequency: 15 }, modbus: { enable: false } },
    system: { name: 'Kitchen' },
    top: 1,
  });
});

test('a form field and the config path: the prefix is added and stripped again', () => {
  assert.equal(configPath('mqtt.', 'publish.qos'), 'mqtt.publish.qos');
  assert.equal(configPath('', 'services.modbus.profile'), 'services.modbus.profile');
  assert.equal(fieldNameOf('mqtt.publish.qos', 'mqtt.'), 'publish.qos');
  assert.equal(fieldNameOf('url', 'mqtt.'), 'url', 'a body path stays as it is');
  assert.equal(fieldNameOf('system.name', ''), 'system.name');
  assert.equal(fieldNameOf(configPath('wifi.sta.', 'name'), 'wifi.sta.'), 'name');
});

test('issuesOf: details.fields or details.issues, by field or path, Modbus issues by set and register', () => {
  assert.deepEqual(issuesOf({ fields: [{ field: 'system.name', message: 'too long' }] }), [
    { field: 'system.name', message: 'too long' },
  ]);
  assert.deepEqual(issuesOf({ issues: [{ path: 'url', message: 'not a URL' }] }), [
    { field: 'url', message: 'not a URL' },
  ]);
  assert.deepEqual(
    issuesOf({
      issues: [
        { set: 1, register: 4, field: 'type', message: 'unknown type' },
        { set: 2, message: 'overlaps set 1' },
        { register: 7, message: 'outside the map' },
      ],
    }),
    [
      { field: 'set 1, register 4 type', message: 'unknown type' },
      { field: 'set 2', message: 'overlaps set 1' },
      { field: 'register 7', message: 'outside the map' },
    ],
  );
  assert.deepEqual(
    issuesOf({ fields: [{ field: 'a' }, null, 'text'] }),
    [],
    'entries without a message are dropped',
  );
  for (const none of [undefined, null, 'text', { fields: 'x' }]) assert.deepEqual(issuesOf(none), []);
});
