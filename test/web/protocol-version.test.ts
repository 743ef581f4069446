// The dashboard shows the meter's protocol version as its standard writes it: DSMR 5.0, not "50".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { protocolVersionText } from '../../src/web/ui/format.js';

test('a DSMR version of two digits gets its point; other protocols and forms stay as sent', () => {
  assert.equal(protocolVersionText('DSMR', '50'), '5.0');
  assert.equal(protocolVersionText('DSMR', '42'), '4.2');
  assert.equal(protocolVersionText('dsmr', '40'), '4.0');
  assert.equal(protocolVersionText('DSMR', '5.0.2'), '5.0.2');
  assert.equal(protocolVersionText('SML', '50'), '50');
  assert.equal(protocolVersionText(undefined, '50'), '50');
});
