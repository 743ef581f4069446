import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressesFor, type InterfaceAddress } from '../../src/device/mdns-interfaces.js';

/**
 * A Raspberry Pi on the LAN (eth0) and Wi-Fi (wlan0) with Docker's bridge (docker0): each querier
 * gets the address of the interface on its own link (RFC 6762 §15), never the bridge's.
 */
const PI: InterfaceAddress[] = [
  { name: 'eth0', address: '192.168.1.20', netmask: '255.255.255.0' },
  { name: 'wlan0', address: '10.0.7.31', netmask: '255.255.0.0' },
  { name: 'docker0', address: '172.17.0.1', netmask: '255.255.0.0' },
];

test('a query is answered with the address of the interface on the querier link', () => {
  assert.deepEqual(addressesFor('192.168.1.77', PI, 'eth0'), ['192.168.1.20']);
  assert.deepEqual(addressesFor('10.0.200.4', PI, 'eth0'), ['10.0.7.31']);
  assert.deepEqual(addressesFor('172.17.0.5', PI, 'eth0'), ['172.17.0.1']);
});

test('an announcement, or a querier on no link of the host, carries the default route interface address', () => {
  assert.deepEqual(addressesFor(undefined, PI, 'eth0'), ['192.168.1.20']);
  assert.deepEqual(addressesFor('8.8.8.8', PI, 'wlan0'), ['10.0.7.31']);
  assert.deepEqual(addressesFor('fe80::1', PI, 'eth0'), ['192.168.1.20']);
  // No default route known: every address, as before.
  assert.deepEqual(addressesFor(undefined, PI, undefined), ['192.168.1.20', '10.0.7.31', '172.17.0.1']);
});
