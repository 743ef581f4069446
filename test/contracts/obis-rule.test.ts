import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MeterScalerWriteSchema } from '../../src/contracts/meters.js';
import { scalerIssues } from '../../src/meter/scalers.js';

/**
 * The OBIS C.D.E rule of custom meter scalers is one rule: the API schema's pattern (what a POST
 * body must match) and the config check (what the settings file and env override must pass) take
 * and refuse the same codes (docs/architecture.md#meter-scalers).
 */
const ACCEPTED = ['0.0.0', '1.8.0', '1.8.255', '16.7.0', '254.254.255', '001.08.0', '99.199.200'];
const REFUSED = [
  '255.8.0',
  '1.255.0',
  '1.8.256',
  '1000.8.0',
  '1.8',
  '1.8.0.0',
  '1..0',
  ' 1.8.0',
  '1.8.0\n',
  '1.8.x',
  '-1.8.0',
  '',
];

test('the API schema and the config check take the same OBIS C.D.E codes', () => {
  const source = (MeterScalerWriteSchema.properties.obis as { pattern?: unknown }).pattern;
  assert.equal(typeof source, 'string');
  const pattern = new RegExp(source as string);
  const byConfig = (obis: string) => scalerIssues([{ obis, scaler: 0 }]).length === 0;
  for (const obis of ACCEPTED) {
    assert.ok(pattern.test(obis), `schema takes ${JSON.stringify(obis)}`);
    assert.ok(byConfig(obis), `config takes ${JSON.stringify(obis)}`);
  }
  for (const obis of REFUSED) {
    assert.ok(!pattern.test(obis), `schema refuses ${JSON.stringify(obis)}`);
    assert.ok(!byConfig(obis), `config refuses ${JSON.stringify(obis)}`);
  }
  const [issue] = scalerIssues([{ obis: '1.8.256', scaler: 0 }]);
  assert.equal(issue?.field, '[0].obis');
  assert.match(issue?.message ?? '', /C\.D\.E.*E 0\.\.255/);
});
