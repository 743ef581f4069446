import { test } from 'node:test';
import { checkWhole, schemaDefaults } from '../../../src/config/validation.js';
import { registerConfigFormats } from '../../../src/config-formats.js';
import assert from 'node:assert/strict';
import { parseTerseRecords, splitTerseLine } from '../../../src/device/wifi/nmcli-terse.js';
import {
  authModeOf,
  ciphersFor,
  htOf,
  rssiFromSignal,
  scanEntriesOf,
  ssidOf,
} from '../../../src/device/wifi/scan-entry.js';
import {
  prefixLengthOf,
  stationFromRequest,
  defaultStation,
} from '../../../src/device/wifi/station-settings.js';
import { hexOf, terse } from './fake-nmcli.js';

registerConfigFormats();

test('terse lines split on unescaped colons and unescape \\: and \\\\', () => {
  assert.deepEqual(splitTerseLine('AA\\:BB\\:CC\\:DD\\:EE\\:FF:My\\:Net:6'), [
    'AA:BB:CC:DD:EE:FF',
    'My:Net',
    '6',
  ]);
  assert.deepEqual(splitTerseLine('back\\\\slash:\\\\\\:x:'), ['back\\slash', '\\:x', '']);
  assert.deepEqual(splitTerseLine('trailing\\'), ['trailing\\']);
  assert.deepEqual(splitTerseLine(''), ['']);
});

test('records with the wrong field count are rejected, not thrown', () => {
  const { records, rejected } = parseTerseRecords('a:b\nonly-one\n\nc\\:d:e\n', ['X', 'Y']);
  assert.deepEqual(records, [
    { X: 'a', Y: 'b' },
    { X: 'c:d', Y: 'e' },
  ]);
  assert.deepEqual(rejected, ['only-one']);
});

test('terse escaping round-trips through the splitter for awkward SSIDs', () => {
  for (const ssid of ['a:b', 'a\\b', '\\:', '::\\\\::', 'Café ☕ Zürich', '']) {
    assert.deepEqual(splitTerseLine(terse(ssid, 'x')), [ssid, 'x']);
  }
});

test('SSID comes from SSID-HEX when it is UTF-8, else from the printed column', () => {
  assert.equal(ssidOf(hexOf('Café ☕'), 'Caf? ?'), 'Café ☕');
  assert.equal(ssidOf('C3', 'latin1-\\xC3'), 'latin1-\\xC3');
  assert.equal(ssidOf('', 'plain'), 'plain');
  assert.equal(ssidOf('zz', 'plain'), 'plain');
});

test('signal maps back onto NetworkManager dBm scale and the spec range', () => {
  assert.equal(rssiFromSignal(100), -40);
  assert.equal(rssiFromSignal(0), -100);
  assert.equal(rssiFromSignal(50), -70);
});

test('security columns become auth_mode and ciphers', () => {
  assert.equal(authModeOf(''), 'open');
  assert.equal(authModeOf('WPA1 WPA2'), 'WPA/WPA2');
  assert.equal(authModeOf('WPA2 WPA3'), 'WPA2/WPA3');
  assert.deepEqual(
    ciphersFor('WPA1 WPA2', 'pair_tkip group_tkip psk', 'pair_tkip pair_ccmp group_tkip psk'),
    {
      pairwise_cipher: 'TKIP/CCMP',
      group_cipher: 'TKIP',
    },
  );
  assert.deepEqual(ciphersFor('WEP', '(none)', '(none)'), { pairwise_cipher: 'WEP', group_cipher: 'WEP' });
  assert.deepEqual(ciphersFor('', '(none)', '(none)'), { pairwise_cipher: 'none', group_cipher: 'none' });
});

test('ht is known for 20 MHz and for 40 MHz where the secondary side is forced', () => {
  assert.equal(htOf('20 MHz', 6), '20');
  assert.equal(htOf('40 MHz', 1), '40+');
  assert.equal(htOf('40 MHz', 11), '40-');
  assert.equal(htOf('40 MHz', 6), undefined);
  assert.equal(htOf(undefined, 6), undefined);
});

test('scan entries: 2.4 GHz only, named, one per BSSID, strongest first', () => {
  const base = { SECURITY: 'WPA2', 'WPA-FLAGS': '(none)', 'RSN-FLAGS': 'pair_ccmp group_ccmp psk' };
  const entries = scanEntriesOf([
    { ...base, BSSID: 'aa:bb:cc:dd:ee:01', 'SSID-HEX': '', SSID: 'weak', CHAN: '1', SIGNAL: '20' },
    { ...base, BSSID: 'AA:BB:CC:DD:EE:02', 'SSID-HEX': '', SSID: 'strong', CHAN: '11', SIGNAL: '90' },
    { ...base, BSSID: 'AA:BB:CC:DD:EE:02', 'SSID-HEX': '', SSID: 'strong-dup', CHAN: '11', SIGNAL: '10' },
    { ...base, BSSID: 'AA:BB:CC:DD:EE:03', 'SSID-HEX': '', SSID: 'five-ghz', CHAN: '36', SIGNAL: '99' },
    { ...base, BSSID: 'AA:BB:CC:DD:EE:04', 'SSID-HEX': '', SSID: '', CHAN: '6', SIGNAL: '99' },
    { ...base, BSSID: 'not-a-mac', 'SSID-HEX': '', SSID: 'broken', CHAN: '6', SIGNAL: '99' },
  ]);
  assert.deepEqual(
    entries.map((entry) => [entry.ssid, entry.bssid, entry.channel, entry.rssi]),
    [
      ['strong', 'AA:BB:CC:DD:EE:02', 11, -46],
      ['weak', 'AA:BB:CC:DD:EE:01', 1, -88],
    ],
  );
});

test('netmask prefix lengths need a contiguous mask', () => {
  assert.equal(prefixLengthOf('255.255.255.0'), 24);
  assert.equal(prefixLengthOf('255.255.255.255'), 32);
  assert.equal(prefixLengthOf('128.0.0.0'), 1);
  assert.equal(prefixLengthOf('255.0.255.0'), undefined);
  assert.equal(prefixLengthOf('0.0.0.0'), undefined);
  assert.equal(prefixLengthOf('255.255.256.0'), undefined);
});

test('station validation: lengths, WPA passphrase forms, static IP fields, power steps', () => {
  const base = defaultStation();
  // The route takes the body apart; the values are checked by the config layer, as for every writer.
  const fields = (body: unknown) => {
    const result = stationFromRequest(body, base);
    if (!result.ok) return result.issues.map((issue) => issue.field);
    const tree = schemaDefaults();
    (tree.wifi as Record<string, unknown>).sta = result.station;
    return checkWhole(tree).map((issue) => issue.field.replace(/^wifi\.sta\./, ''));
  };
  const ok = (body: Record<string, unknown>) => fields(body).length === 0;
  assert.ok(ok({ enable: true, name: 'x'.repeat(32), password: '' }));
  assert.deepEqual(fields({ name: 'x'.repeat(33) }), ['name']);
  assert.ok(ok({ enable: true, name: 'n', password: 'p'.repeat(8) }));
  assert.ok(ok({ enable: true, name: 'n', password: 'ab'.repeat(32) }));
  assert.deepEqual(fields({ password: 'p'.repeat(7) }), ['password']);
  assert.deepEqual(fields({ password: 'g'.repeat(64) }), ['password']);
  assert.deepEqual(fields({ password: 'pässwörter' }), ['password']);
  assert.deepEqual(fields({ enable: true }), ['name']);
  assert.deepEqual(
    fields({ static_ip: true, ip: '192.168.1.20', netmask: '255.255.255.0', gateway: '192.168.1.1' }),
    ['dns'],
  );
  assert.deepEqual(fields({ ip: '192.168.1.300' }), ['ip']);
  assert.deepEqual(
    fields({ static_ip: true, ip: '10.0.0.2', netmask: '255.0.255.0', gateway: '10.0.0.1', dns: '10.0.0.1' }),
    ['netmask'],
  );
  assert.ok(ok({ max_power: 20.5 }));
  assert.deepEqual(fields({ max_power: 20.3 }), ['max_power']);
  assert.deepEqual(fields({ max_power: 21.5 }), ['max_power']);
  assert.deepEqual(fields({ enable: 'yes' }), ['enable']);
  assert.deepEqual(fields({ colour: 'red' }), ['colour']);
  assert.deepEqual(fields([1]), ['']);
  assert.ok(ok({ max_tx_power: 5, password_len: 3 }), 'read-only fields sent back are ignored');
});
