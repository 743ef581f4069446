import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait.js';
import { startDaemonProcess, type ListeningDaemon } from '../helpers/daemon-process.js';

const HOMEWIZARD_PATHS = ['/api', '/api/v1/data', '/api/v1/telegram'];

/** The shape of a JSON value: keys and types, recursively (values differ between two simulators). */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, inner]) => [key, shapeOf(inner)]),
    );
  return value === null ? 'null' : typeof value;
}

async function answerOf(baseUrl: string, path: string): Promise<unknown> {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}${path}`, { signal: abort.signal });
  const type = response.headers.get('content-type') ?? '';
  // An event stream never ends: its status and type are its answer.
  let body: unknown = type.startsWith('text/event-stream') ? 'stream' : await response.text();
  abort.abort();
  if (type.startsWith('application/json') && typeof body === 'string') body = shapeOf(JSON.parse(body));
  else if (typeof body === 'string') body = body.length > 0;
  return { status: response.status, type, body };
}

test('every whatwatt Go GET route answers the same with the HomeWizard personality on', async (t) => {
  const daemons: ListeningDaemon[] = [];
  for (const enable of ['false', 'true']) {
    const state = mkdtempSync(join(tmpdir(), 'meter-gateway-hw-routes-'));
    t.after(() => rmSync(state, { recursive: true, force: true }));
    const daemon = await startDaemonProcess(state, {
      METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: enable,
    });
    t.after(() => daemon.stop());
    daemons.push(daemon);
  }
  const [off, on] = daemons as [ListeningDaemon, ListeningDaemon];
  // Both simulators past their second reading, so both know the measured interval.
  for (const daemon of daemons)
    await waitFor(
      'two readings',
      async () => (await (await fetch(`${daemon.baseUrl}/api/v1/system`)).json()) as { meter: object },
      (system) => 'report_interval' in system.meter,
    );
  const document = (await (await fetch(`${on.baseUrl}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const paths = Object.entries(document.paths)
    .filter(([path, methods]) => 'get' in methods && !path.includes('{') && path.startsWith('/api/v1/'))
    .map(([path]) => path)
    .filter((path) => !HOMEWIZARD_PATHS.includes(path));
  for (const expected of ['/api/v1/report', '/api/v1/live', '/api/v1/system', '/api/v1/settings'])
    assert.ok(paths.includes(expected), expected);
  for (const path of paths)
    assert.deepEqual(await answerOf(on.baseUrl, path), await answerOf(off.baseUrl, path), path);
  // The personality itself answers only where it is on.
  assert.equal((await fetch(`${on.baseUrl}/api/v1/data`)).status, 200);
  assert.equal((await fetch(`${off.baseUrl}/api/v1/data`)).status, 404);
});

test('a device client replacing the settings (POST without services.emulate) keeps the personality on', async (t) => {
  const state = mkdtempSync(join(tmpdir(), 'meter-gateway-hw-replace-'));
  t.after(() => rmSync(state, { recursive: true, force: true }));
  const daemon = await startDaemonProcess(state);
  t.after(() => daemon.stop());
  const settings = `${daemon.baseUrl}/api/v1/settings`;
  const json = { 'Content-Type': 'application/json' };
  const put = await fetch(settings, {
    method: 'PUT',
    headers: json,
    body: JSON.stringify({ services: { emulate: { homewizard: { enable: true } } } }),
  });
  assert.equal(put.status, 200);
  const body = (await (await fetch(settings)).json()) as { services: Record<string, unknown> };
  delete body.services.emulate;
  const replaced = await fetch(settings, { method: 'POST', headers: json, body: JSON.stringify(body) });
  assert.equal(replaced.status, 200, await replaced.text());
  assert.equal((await fetch(`${daemon.baseUrl}/api`)).status, 200);
});
