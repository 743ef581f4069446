import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REGISTER_IDS } from '../../src/modbus/register-ids.js';
import { PHASES } from '../../src/reading/phases.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { buildTemplateVariables } from '../../src/reading/template-variables.js';

const system = { id: 'ECC9FF5C7F14', model: 'm', firmware: '1', bootId: 'b', bootTime: 0 };

function readingWith(current: number, importKw: number, exportKw: number): Reading {
  return {
    receivedAt: 1_700_000_000_000,
    protocol: 'SML',
    identity: {},
    values: valuesOf({ '31.7.0': [current, 'A'], '21.7.0': [importKw, 'kW'], '22.7.0': [exportKw, 'kW'] }),
    mbus: [],
  };
}

function modbusCurrentL1(reading: Reading): number | undefined {
  const definition = REGISTER_IDS.get('current.l1');
  assert.equal(definition?.kind, 'numeric');
  if (definition?.kind !== 'numeric') return undefined;
  return definition.value({ reading, identity: {}, system, convFactor: 1, now: reading.receivedAt });
}

function templateCurrentL1(reading: Reading): unknown {
  return buildTemplateVariables({
    reading,
    meter: { status: 'OK', interface: 'P1', identity: {} },
    system,
    systemName: 'x',
    convFactor: 1,
    wifi: {},
    now: reading.receivedAt,
  }).get('s31_7_0');
}

test('one signed-current rule: MQTT s31_7_0 and Modbus current.l1 agree, whatever sign the meter sends', () => {
  const cases: Array<[current: number, importKw: number, exportKw: number, expected: number]> = [
    [3.62, 0.8, 0, 3.62], // importing, unsigned current
    [3.62, 0, 0.8, -3.62], // exporting, unsigned current
    [-3.62, 0, 0.8, -3.62], // exporting, meter sends the current signed already
    [-3.62, 0.8, 0, 3.62], // importing, a negative current from the meter is still a magnitude
  ];
  for (const [current, importKw, exportKw, expected] of cases) {
    const reading = readingWith(current, importKw, exportKw);
    assert.equal(modbusCurrentL1(reading), expected, `Modbus ${current} A, ${importKw}/${exportKw} kW`);
    assert.equal(templateCurrentL1(reading), expected, `MQTT ${current} A, ${importKw}/${exportKw} kW`);
  }
});

test('the phase table names the OBIS codes of each line', () => {
  assert.deepEqual(
    PHASES.map((phase) => [phase.line, phase.current, phase.voltage, phase.activeImport, phase.activeExport]),
    [
      ['l1', '31.7.0', '32.7.0', '21.7.0', '22.7.0'],
      ['l2', '51.7.0', '52.7.0', '41.7.0', '42.7.0'],
      ['l3', '71.7.0', '72.7.0', '61.7.0', '62.7.0'],
    ],
  );
  assert.deepEqual([PHASES[2]!.reactiveImport, PHASES[2]!.reactiveExport], ['63.7.0', '64.7.0']);
});
