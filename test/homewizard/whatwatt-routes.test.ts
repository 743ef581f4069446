import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { waitFor } from '../helpers/wait.js';
import { startDaemonInProcess, type InProcessDaemon } from '../helpers/daemon-in-process.js';
import { freeUdpPort } from '../helpers/ports.js';

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

/**
 * The two shapes with a value that is null on one side and a number, string or boolean on the other
 * taken as that type on both: a nullable value may be unknown on one gateway and known on the other
 * for a moment (the first history minute of a daemon that started just before a minute ended holds
 * one reading, so its energy is null).
 */
function alignNulls(a: unknown, b: unknown): [unknown, unknown] {
  const primitive = (shape: unknown) => shape === 'number' || shape === 'string' || shape === 'boolean';
  if (a === 'null' && primitive(b)) return [b, b];
  if (b === 'null' && primitive(a)) return [a, a];
  if (Array.isArray(a) && Array.isArray(b) && a.length === 1 && b.length === 1) {
    const [x, y] = alignNulls(a[0], b[0]);
    return [[x], [y]];
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a)) {
    const left: Record<string, unknown> = { ...(a as Record<string, unknown>) };
    const right: Record<string, unknown> = { ...(b as Record<string, unknown>) };
    for (const key of Object.keys(left))
      if (key in right) [left[key], right[key]] = alignNulls(left[key], right[key]);
    return [left, right];
  }
  return [a, b];
}

/**
 * /api/v1/system without the personalities' own status lines (this project's additions beside the
 * device's fields): a running output's line carries its facts (port, meter), one switched off has none
 * (docs/architecture.md#output-contract).
 */
function withoutPersonalityLines(system: { services?: Record<string, unknown> }): unknown {
  delete system.services?.homewizard;
  delete system.services?.shelly_udp;
  return system;
}

async function answerOf(baseUrl: string, path: string): Promise<unknown> {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}${path}`, { signal: abort.signal });
  const type = response.headers.get('content-type') ?? '';
  // An event stream never ends: its status and type are its answer.
  let body: unknown = type.startsWith('text/event-stream') ? 'stream' : await response.text();
  abort.abort();
  if (type.startsWith('application/json') && typeof body === 'string')
    body = shapeOf(path === '/api/v1/system' ? withoutPersonalityLines(JSON.parse(body)) : JSON.parse(body));
  else if (typeof body === 'string') body = body.length > 0;
  return { status: response.status, type, body };
}

test('every whatwatt Go GET route answers the same with the HomeWizard personality on', async (t) => {
  const daemons: InProcessDaemon[] = [];
  for (const enable of ['false', 'true']) {
    const state = mkdtempSync(join(tmpdir(), 'meter-gateway-hw-routes-'));
    const daemon = await startDaemonInProcess(state, {
      METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: enable,
    });
    t.after(() => daemon.stop());
    t.after(() => rmSync(state, { recursive: true, force: true }));
    daemons.push(daemon);
  }
  const [off, on] = daemons as [InProcessDaemon, InProcessDaemon];
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
    assert.deepEqual(
      ...alignNulls(await answerOf(on.baseUrl, path), await answerOf(off.baseUrl, path)),
      path,
    );
  // The personality itself answers only where it is on.
  assert.equal((await fetch(`${on.baseUrl}/api/v1/data`)).status, 200);
  assert.equal((await fetch(`${off.baseUrl}/api/v1/data`)).status, 404);
});

test('a device client replacing the settings (POST without services.emulate) keeps the personality on', async (t) => {
  const state = mkdtempSync(join(tmpdir(), 'meter-gateway-hw-replace-'));
  const daemon = await startDaemonInProcess(state);
  t.after(() => daemon.stop());
  t.after(() => rmSync(state, { recursive: true, force: true }));
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

/** A UDP port free right now (bound to 0 and released). */

/** One JSON-RPC request over a fresh WebSocket at /rpc, as Home Assistant's aioshelly sends it. */
async function overWebSocket(baseUrl: string, method: string): Promise<Record<string, number>> {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/rpc`);
  try {
    await once(socket, 'open');
    socket.send(JSON.stringify({ id: 7, src: 'test', method, params: { id: 0 } }));
    const [data] = (await once(socket, 'message')) as [Buffer];
    return (JSON.parse(data.toString()) as { result: Record<string, number> }).result;
  } finally {
    socket.close();
  }
}

async function overUdp(port: number, method: string): Promise<Record<string, number>> {
  const socket = createSocket('udp4');
  try {
    socket.send(JSON.stringify({ id: 8, src: 'test', method, params: { id: 0 } }), port, '127.0.0.1');
    const [data] = (await once(socket, 'message')) as [Buffer];
    return (JSON.parse(data.toString()) as { result: Record<string, number> }).result;
  } finally {
    socket.close();
  }
}

test('both personalities on: every whatwatt Go GET route answers as with both off, and both serve the same reading', async (t) => {
  const udpPort = await freeUdpPort();
  const daemons: InProcessDaemon[] = [];
  for (const enable of ['false', 'true']) {
    const state = mkdtempSync(join(tmpdir(), 'meter-gateway-both-routes-'));
    const daemon = await startDaemonInProcess(state, {
      METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: enable,
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: enable,
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORT: String(udpPort),
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORTS: '',
    });
    t.after(() => daemon.stop());
    t.after(() => rmSync(state, { recursive: true, force: true }));
    daemons.push(daemon);
  }
  const [off, on] = daemons as [InProcessDaemon, InProcessDaemon];
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
  // The settings show the personalities' own settings (services.emulate), which differ by design.
  const withoutEmulate = (answer: unknown) => {
    const view = answer as { body: { services?: Record<string, unknown> } };
    delete view.body.services?.emulate;
    return view;
  };
  for (const path of paths) {
    const [onAnswer, offAnswer] = alignNulls(
      await answerOf(on.baseUrl, path),
      await answerOf(off.baseUrl, path),
    );
    if (path === '/api/v1/settings')
      assert.deepEqual(withoutEmulate(onAnswer), withoutEmulate(offAnswer), path);
    else assert.deepEqual(onAnswer, offAnswer, path);
  }
  for (const path of ['/api/v1/data', '/rpc/EM.GetStatus?id=0', '/shelly'])
    assert.equal((await fetch(`${off.baseUrl}${path}`)).status, 404, path);

  // The same reading through every door: HomeWizard's data, Shelly over HTTP, WebSocket and UDP.
  // Repeated until no new reading arrived between the first and the last answer.
  const hwData = async () =>
    (await (await fetch(`${on.baseUrl}/api/v1/data`)).json()) as Record<string, number>;
  const agreed = await waitFor(
    'four answers of one reading',
    async () => {
      const before = await hwData();
      const http = (await (await fetch(`${on.baseUrl}/rpc/EM.GetStatus?id=0`)).json()) as Record<
        string,
        number
      >;
      const ws = await overWebSocket(on.baseUrl, 'EM.GetStatus');
      const udp = await overUdp(udpPort, 'EM.GetStatus');
      const emData = await overWebSocket(on.baseUrl, 'EMData.GetStatus');
      const after = await hwData();
      return { before, after, http, ws, udp, emData };
    },
    ({ before, after }) => JSON.stringify(before) === JSON.stringify(after),
  );
  const { before, http, ws, udp, emData } = agreed;
  assert.equal(typeof before.active_power_w, 'number');
  assert.equal(http.total_act_power, before.active_power_w);
  assert.deepEqual(ws, http);
  // UDP answers the powers alone (docs/architecture.md#shelly-pro-3em).
  for (const field of ['a_act_power', 'b_act_power', 'c_act_power', 'total_act_power'])
    assert.equal(udp[field], http[field], field);
  assert.equal(http.a_act_power, Math.round(before.active_power_l1_w! * 10) / 10);
  assert.equal(emData.total_act, Math.round(before.total_power_import_kwh! * 100_000) / 100);
});
