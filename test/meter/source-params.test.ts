// A query parameter a meter source does not take is refused, naming it (a typo must not fall back
// to the default without a word).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigStore } from '../../src/config/config-store.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { parseSource } from '../../src/meter/source.js';

registerConfigFormats();

test('a mistyped parameter is refused with its name and the nearest known one', () => {
  assert.throws(
    () => parseSource('serial:/dev/ttyUSB0?protocl=dsmr'),
    /unknown parameter 'protocl' \(did you mean 'protocol'\?\); this source takes protocol, interface, baud/,
  );
  assert.throws(
    () => parseSource('tcp://127.0.0.1:2000?protocol=dsmr&baud=9600'),
    /unknown parameter 'baud'; this source takes protocol$/,
  );
  assert.throws(
    () => parseSource('file:captures/x.txt?intervall=2'),
    /unknown parameter 'intervall' \(did you mean 'interval'\?\)/,
  );
  assert.throws(
    () => parseSource('modbus-rtu:/dev/ttyUSB0?unit=1&profil=sdm630'),
    /unknown parameter 'profil' \(did you mean 'profile'\?\)/,
  );
  assert.throws(
    () => parseSource('modbus-tcp://10.0.0.5?unitid=3'),
    /unknown parameter 'unitid' \(did you mean 'unit'\?\)/,
  );
  assert.throws(
    () => parseSource('shelly://10.0.0.6?telegram=1'),
    /unknown parameter 'telegram'; this source takes interval/,
  );
  assert.throws(
    () => parseSource('homewizard://10.0.0.7?intervl=1'),
    /unknown parameter 'intervl' \(did you mean 'interval'\?\)/,
  );
});

test('every documented parameter is still taken', () => {
  for (const source of [
    'serial:/dev/ttyUSB0?protocol=auto&baud=115200&parity=none&databits=8&stopbits=1&interface=P1',
    'serial:/dev/ttyUSB0?protocol=d0&mode=request&poll=60&address=123&data_bits=7&stop_bits=1',
    'tcp://127.0.0.1:2000?protocol=dsmr',
    'file:captures/x.txt?interval=1&loop=true&protocol=auto',
    'modbus-rtu:/dev/ttyUSB0?unit=1&profile=sdm630&baud=9600&parity=none&stopbits=1&interval=2',
    'modbus-tcp://host:502?unit=1&profile=sunspec&interval=1',
    'homewizard://10.0.0.7:80?interval=1&telegram=1',
    'shelly://10.0.0.6?interval=1',
    'http://gateway.local/api/v1/live?anything=goes',
  ])
    assert.doesNotThrow(() => parseSource(source), source);
});

test('the config load refuses such a source naming meter.source and the parameter', () => {
  assert.throws(
    () => ConfigStore.load({ env: { METER_GATEWAY_METER_SOURCE: 'serial:/dev/ttyUSB0?protocl=dsmr' } }),
    /meter\.source.*unknown parameter 'protocl'/s,
  );
});
