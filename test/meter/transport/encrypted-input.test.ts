import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import type { MeterStatus } from '../../../src/reading/meter-state.js';
import { corpusDir, requireCorpus } from '../../helpers/environment.js';
import { encryptSmarty } from '../dsmr/smarty-cipher.js';
import { meterInput, tempDir, waitForStatus } from './meter-input-harness.js';

const KEY = '000102030405060708090A0B0C0D0E0F';

/** A P1-to-LAN adapter on a Smarty meter: encrypted telegrams every 200 ms. */
async function smartyAdapter(t: import('node:test').TestContext): Promise<number> {
  const plain = readFileSync(join(corpusDir, 'dsmr', 'meterlogger_luxembourg_smarty.txt'));
  let counter = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    const timer = setInterval(() => socket.write(encryptSmarty(plain, KEY, ++counter)), 200);
    socket.on('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

const CASES: ReadonlyArray<{ key: string; status: MeterStatus }> = [
  { key: '', status: 'KEY REQUIRED' },
  { key: 'F0E0D0C0B0A090807060504030201000', status: 'ENCRYPTION KEY' },
  { key: KEY, status: 'OK' },
];

for (const { key, status } of CASES) {
  test(`encrypted DSMR telegrams with ${key ? (status === 'OK' ? 'the right' : 'a wrong') : 'no'} key: ${status}`, async (t) => {
    if (!requireCorpus(t)) return;
    const port = await smartyAdapter(t);
    const env: Record<string, string> = key ? { METER_GATEWAY_METER_ENCRYPTION_KEY: key } : {};
    const harness = meterInput(tempDir('mg-smarty-'), `tcp://127.0.0.1:${port}?protocol=dsmr`, env);
    t.after(() => harness.close());
    await harness.input.start();
    await waitForStatus(harness.store, [status]);
    if (status === 'OK') assert.equal(harness.store.latest?.values.get('1.8.0')?.value, 273.764);
    else assert.ok(harness.store.counters.encryptionErrors > 0);
  });
}
