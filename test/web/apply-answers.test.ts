import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { requireChromium } from '../helpers/browser.js';
import { freePort } from '../helpers/ports.js';
import { setUp } from './page-rig.js';

// A save the outputs did not take up is never "Saved." (docs/architecture.md#output-contract): a 500
// names the output and its reason, a 202 says the change is still being applied.

test('a form whose write an output cannot take up names it; a write past the deadline says Applying…', async (t) => {
  if (!requireChromium(t)) return;
  const busy = createServer((socket) => socket.destroy());
  busy.listen(0, '127.0.0.1');
  await once(busy, 'listening');
  const busyPort = (busy.address() as { port: number }).port;
  // Another gateway whose live stream never answers while the test runs: the meter's open waits.
  const streams: ServerResponse[] = [];
  const remote = createHttpServer((request, response) => {
    if (request.url === '/api/v1/live') streams.push(response);
    else response.writeHead(404).end();
  });
  remote.listen(0, '127.0.0.1');
  await once(remote, 'listening');
  const remotePort = (remote.address() as { port: number }).port;
  t.after(async () => {
    for (const stream of streams) stream.destroy();
    remote.closeAllConnections();
    await new Promise<void>((resolve) => remote.close(() => resolve()));
    await new Promise<void>((resolve) => busy.close(() => resolve()));
  });
  const { daemon, page, pageErrors } = await setUp(t, {
    METER_GATEWAY_MODBUS_TCP_HOST: '127.0.0.1',
    METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
    METER_GATEWAY_SERVICES_MODBUS_PORT: String(await freePort()),
    METER_GATEWAY_HTTP_APPLY_TIMEOUT_MS: '500',
  });

  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  const port = page.locator('#form-services input[name="services.modbus.port"]');
  await port.waitFor();
  await port.fill(String(busyPort));
  await page.locator('#form-services button[type=submit]').click();
  const failed = page.locator('#form-services .form-status.error', { hasText: 'not applied by modbus' });
  await failed.waitFor();
  assert.match(await failed.innerText(), /EADDRINUSE/);

  await page.goto(`${daemon.baseUrl}/#/settings/meter`);
  const source = page.locator('#form-meter input[name="source"]');
  await source.waitFor();
  await source.fill(`http://127.0.0.1:${remotePort}/api/v1/live`);
  await page.locator('#form-meter button[type=submit]').click();
  await page.locator('#form-meter .form-status.busy', { hasText: 'Applying… (meter)' }).waitFor();
  assert.deepEqual(pageErrors, []);
});
