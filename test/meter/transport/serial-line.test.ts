import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSource, SourceError, type SerialSource } from '../../../src/meter/source.js';
import { formatLine } from '../../../src/serial/line-settings.js';
import { d0ModeOf, lineSettingsOf } from '../../../src/meter/transport/serial.js';

function lineOf(uri: string): string {
  return formatLine(lineSettingsOf(parseSource(uri) as SerialSource));
}

test('each protocol opens with its specified line settings', () => {
  assert.equal(lineOf('serial:/dev/ttyUSB0?protocol=dsmr'), '115200 8N1');
  assert.equal(lineOf('serial:/dev/ttyUSB0?protocol=dsmr&baud=9600'), '9600 7E1');
  assert.equal(lineOf('serial:/dev/ttyUSB0?protocol=sml'), '9600 8N1');
  assert.equal(lineOf('serial:/dev/ttyUSB0?protocol=d0'), '300 7E1');
  assert.equal(lineOf('serial:/dev/ttyUSB0?protocol=d0&mode=push'), '9600 7E1');
});

test('URI parameters override the protocol defaults one by one', () => {
  assert.equal(lineOf('serial:/dev/ttyUSB0?protocol=dsmr&baud=9600&databits=8&parity=none'), '9600 8N1');
  assert.equal(lineOf('serial:/dev/ttyUSB0?protocol=sml&parity=odd&stopbits=2'), '9600 8O2');
  assert.equal(lineOf('serial:/dev/ttyUSB0?protocol=d0&mode=push&baud=2400'), '2400 7E1');
  assert.equal(lineOf('serial:/dev/ttyAMA0?protocol=d0&baud=600'), '600 7E1');
});

test('IEC 62056-21 request settings: mode, poll interval and device address', () => {
  const source = parseSource('serial:/dev/ttyUSB0?protocol=d0&poll=15&address=12345678') as SerialSource;
  assert.equal(d0ModeOf(source), 'request');
  assert.equal(source.pollIntervalMs, 15_000);
  assert.equal(source.address, '12345678');
  assert.equal(source.meterInterface, 'OPTICAL');
  assert.equal(d0ModeOf(parseSource('serial:/dev/ttyUSB0?protocol=d0&mode=push') as SerialSource), 'push');
  for (const bad of ['mode=poll', 'poll=0', 'poll=x', 'address=a!b', `address=${'9'.repeat(33)}`]) {
    assert.throws(() => parseSource(`serial:/dev/ttyUSB0?protocol=d0&${bad}`), SourceError, bad);
  }
});
