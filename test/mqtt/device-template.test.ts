import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeCapture } from '../../src/meter/protocols.js';
import { renderTemplate } from '../../src/reading/template.js';
import { buildTemplateVariables } from '../../src/reading/template-variables.js';
import { ReadingStore } from '../../src/reading/store.js';
import { corpusDir, requireCorpus } from '../helpers/environment.js';

/** The device's default template, as its MQTT client documentation shows it in a GET response. */
const DEVICE_DEFAULT_TEMPLATE =
  '{\n  "P_In": ${1_7_0},\n  "P_Out": ${2_7_0},\n  "E_In": ${1_8_0},\n  "E_Out": ${2_8_0},\n  "Meter": {\n    "DateTime": "${meter.date_time}"\n  },\n  "Sys": {\n    "Id": "${sys.id}"\n  }\n}';

/** Every variable of the device's template documentation ("Available Variables"). */
const DOCUMENTED = [
  '1_8_0',
  'energy.in',
  '1_8_1',
  '1_8_2',
  '2_8_0',
  'energy.out',
  '2_8_1',
  '2_8_2',
  '1_7_0',
  'power.in',
  '21_7_0',
  '41_7_0',
  '61_7_0',
  '2_7_0',
  'power.out',
  '22_7_0',
  '42_7_0',
  '62_7_0',
  '3_7_0',
  '4_7_0',
  '3_8_0',
  '4_8_0',
  '5_8_0',
  '6_8_0',
  '7_8_0',
  '8_8_0',
  '32_7_0',
  '52_7_0',
  '72_7_0',
  '31_7_0',
  '51_7_0',
  '71_7_0',
  's31_7_0',
  's51_7_0',
  's71_7_0',
  'timestamp',
  'tariff',
  'conv_factor',
  '13_7_0',
  'meter.date_time',
  'meter.id',
  'meter.type',
  'meter.vendor',
  'meter.model',
  'meter.interface',
  'meter.protocol',
  'meter.protocol_ver',
  'meter.status',
  'sys.name',
  'sys.id',
  'sys.firmware',
  'sys.date_time',
  'wifi.mode',
  'wifi.sta.status',
  'wifi.sta.ssid',
  'wifi.sta.rssi',
  'wifi.sta.ip',
  'eth.state',
  'eth.ip',
  'plug.interface',
  'plug.voltage.usb',
  'plug.voltage.p1',
  'plug.voltage.mbus',
];

function variablesOf(file: string): ReturnType<typeof buildTemplateVariables> {
  const store = new ReadingStore({ staleAfterMs: Number.MAX_SAFE_INTEGER, meterInterface: 'P1' });
  for (const result of decodeCapture(readFileSync(file), 'dsmr')) if (result.ok) store.ingest(result.reading);
  assert.ok(store.latest, `${file} has a valid telegram`);
  const vars = buildTemplateVariables({
    reading: store.latest,
    meter: store.meter,
    system: { id: 'ECC9FF5C7F14', model: 'meter-gateway', firmware: '0.1.0', bootId: 'b', bootTime: 0 },
    systemName: 'gateway',
    convFactor: 1,
    wifi: { ssid: '', ip: '192.0.2.10', interface: 'eth0' },
    now: store.latest.receivedAt,
  });
  store.close();
  return vars;
}

test("the device's default MQTT template renders to valid JSON with every variable resolved", (t) => {
  if (!requireCorpus(t)) return;
  const vars = variablesOf(join(corpusDir, 'dsmr', 'ndokter_v5.txt'));
  const rendered = renderTemplate(DEVICE_DEFAULT_TEMPLATE, vars);
  assert.doesNotMatch(rendered, /\$\{/);
  const message = JSON.parse(rendered) as {
    P_In: number;
    E_In: number;
    Meter: { DateTime: string };
    Sys: { Id: string };
  };
  assert.equal(typeof message.P_In, 'number');
  assert.equal(typeof message.E_In, 'number');
  assert.match(message.Meter.DateTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
  assert.equal(message.Sys.Id, 'ECC9FF5C7F14');
});

test('every variable of the device documentation resolves; text variables the meter did not send are ""', (t) => {
  if (!requireCorpus(t)) return;
  const vars = variablesOf(join(corpusDir, 'dsmr', 'ndokter_v5.txt'));
  const unresolved = DOCUMENTED.filter((name) => !vars.has(name));
  assert.deepEqual(unresolved, []);
  const rendered = renderTemplate(
    `{${DOCUMENTED.map((name) => `"${name}":${/^[a-z]/.test(name) && !['timestamp', 'tariff', 'conv_factor', 'wifi.sta.rssi'].includes(name) && !name.startsWith('plug.voltage') && !name.startsWith('energy.') && !name.startsWith('power.') ? `"\${${name}}"` : `\${${name}}`}`).join(',')}}`,
    vars,
  );
  const message = JSON.parse(rendered) as Record<string, unknown>;
  assert.equal(message['meter.protocol'], 'DSMR');
  assert.equal(message['eth.state'], 'up');
  assert.equal(message['eth.ip'], '192.0.2.10');
  assert.equal(message['wifi.mode'], 'off');
  assert.equal(message['plug.interface'], 'P1');
  assert.equal(message['wifi.sta.rssi'], null);
  assert.equal(typeof message['meter.type'], 'string');
  assert.notEqual(message['meter.vendor'], 'null', 'absent text is "", never the word null');
});
