// The further-meter editor's source fields (src/web/ui/meter-source-form.ts, DOM-free), run in node:
// every URI the fields build is one the meter source parser takes, a stored URI reads back into the
// same fields, and one the fields cannot say exactly stays a URI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROFILE_NAMES } from '../../src/modbus-protocol/profiles/catalogue.js';
import { parseSource } from '../../src/meter/source.js';
import { tServer } from '../../src/web/ui/i18n/i18n.js';
import { fieldsOf, newSource, PROFILES, uriOf } from '../../src/web/ui/meter-source-form.js';

test('the profile choices are the meter profiles of the catalogue', () => {
  assert.deepEqual(Object.keys(PROFILES).sort(), PROFILE_NAMES.filter((name) => name !== 'whatwatt').sort());
});

test('each kind builds a URI the source parser takes, and reads it back into the same fields', () => {
  const cases: Array<[string, Record<string, string>]> = [
    [
      'serial:/dev/ttyUSB0?protocol=dsmr',
      { kind: 'serial', path: '/dev/ttyUSB0', protocol: 'dsmr', line: '' },
    ],
    [
      'serial:/dev/ttyAMA0?protocol=auto&baud=9600&databits=7&parity=even',
      { kind: 'serial', path: '/dev/ttyAMA0', protocol: 'auto', line: 'baud=9600&databits=7&parity=even' },
    ],
    [
      'modbus-tcp://192.0.2.7:1502?unit=3&profile=sdm630',
      { kind: 'modbus-tcp', host: '192.0.2.7', port: '1502', unit: '3', profile: 'sdm630' },
    ],
    [
      'modbus-tcp://[2001:db8::7]:502?unit=1&profile=sunspec',
      { kind: 'modbus-tcp', host: '2001:db8::7', port: '502', unit: '1', profile: 'sunspec' },
    ],
    [
      'modbus-rtu:/dev/ttyUSB1?unit=2&profile=dtsu666&baud=19200',
      { kind: 'modbus-rtu', path: '/dev/ttyUSB1', unit: '2', profile: 'dtsu666', baud: '19200' },
    ],
    ['homewizard://192.0.2.8', { kind: 'homewizard', host: '192.0.2.8', port: '' }],
    ['shelly://192.0.2.9:8080', { kind: 'shelly', host: '192.0.2.9', port: '8080' }],
  ];
  for (const [uri, expected] of cases) {
    const fields = fieldsOf(uri, undefined);
    for (const [name, value] of Object.entries(expected))
      assert.equal(fields[name as keyof typeof fields], value, `${uri}: ${name}`);
    assert.equal(uriOf(fields), uri);
    assert.doesNotThrow(() => parseSource(uriOf(fields)), uri);
  }
  const fresh = { ...newSource(), host: '127.0.0.1' };
  assert.equal(uriOf(fresh), 'modbus-tcp://127.0.0.1:502?unit=1&profile=sdm630');
  assert.doesNotThrow(() => parseSource(uriOf(fresh)));
});

test('a source the fields cannot say exactly stays a URI, unchanged; an expression is a virtual meter', () => {
  for (const uri of [
    'simulator',
    'tcp://192.0.2.1:2000?protocol=dsmr',
    'serial:/dev/ttyUSB0?protocol=auto&interface=P1',
    'modbus-tcp://192.0.2.7?unit=1&profile=sunspec&interval=5',
    'modbus-rtu:/dev/ttyUSB1?unit=2&parity=even',
    'homewizard://192.0.2.8?interval=2',
    'http://user:secret@192.0.2.3/api/v1/live',
  ]) {
    const fields = fieldsOf(uri, undefined);
    assert.equal(fields.kind, 'uri', uri);
    assert.equal(uriOf(fields), uri);
  }
  const virtual = fieldsOf(undefined, 'main - ev');
  assert.equal(virtual.kind, 'virtual');
  assert.equal(virtual.expression, 'main - ev');
});

test('tServer: a known key in the page language with its arguments, else the English message', () => {
  assert.equal(
    tServer('must be an integer in 1..3600', 'rule.integer_range', { min: 1, max: 3600 }),
    'must be an integer in 1..3600',
  );
  assert.equal(tServer('Voltage L1', 'quantity.Voltage', { suffix: 'L1' }), 'Voltage L1');
  assert.equal(tServer('the English', 'no.such.key', {}), 'the English');
  assert.equal(tServer('the English', undefined, undefined), 'the English');
});
