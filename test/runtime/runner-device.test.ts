import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc16Arc } from '../../src/checksum/crc16.js';
import { createAppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { MdnsAnnouncer } from '../../src/device/mdns.js';
import { crcHex } from '../../src/meter/dsmr/crc16-arc.js';
import { runOutput } from '../../src/output-runner.js';
import { silentLogger } from '../helpers/log-lines.js';
import { freeUdpPort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';
import { putJson, startDaemon, type Running, type WriteAnswer } from './runner-rig.js';

// The device outputs run by the runner (docs/architecture.md#output-contract): the Shelly UDP
// personality and the HomeWizard personality through a real daemon and its HTTP API, the mDNS
// announcer on loopback. A failed start is retried until its cause goes away, a write an output cannot take
// up answers 500 naming it, the failure fields go with their cause, and an output follows the meter
// its settings name when that meter is edited.

registerConfigFormats();

/** A port held by another program, as the outputs meet it: a TCP listener or a bound UDP socket. */
interface Holder {
  port: number;
  release(): Promise<void>;
}

/** `release` once; later calls (the clean-up after a failed assertion) do nothing. */
function releaseOnce(release: () => Promise<void>): () => Promise<void> {
  let released: Promise<void> | undefined;
  return () => (released ??= release());
}

async function holdTcp(): Promise<Holder> {
  const server: Server = createServer((socket) => socket.destroy());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    release: releaseOnce(() => new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}

async function holdUdp(): Promise<Holder> {
  const socket: UdpSocket = createSocket({ type: 'udp4', reuseAddr: false });
  socket.bind(await freeUdpPort(), '127.0.0.1');
  await once(socket, 'listening');
  return {
    port: socket.address().port,
    release: releaseOnce(async () => {
      socket.close();
      await once(socket, 'close');
    }),
  };
}

/** The Shelly UDP answer to EM.GetStatus on `port`, undefined when none came within 300 ms. */
async function askUdp(port: number): Promise<Record<string, number> | undefined> {
  const client = createSocket('udp4');
  try {
    client.send(JSON.stringify({ id: 1, method: 'EM.GetStatus', params: { id: 0 } }), port, '127.0.0.1');
    return await Promise.race([
      once(client, 'message').then(
        ([data]) => (JSON.parse(String(data)) as { result: Record<string, number> }).result,
      ),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 300)),
    ]);
  } finally {
    client.close();
  }
}

/** GET `url` as JSON; undefined while nothing listens there. */
async function getJson(url: string): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const answer = await fetch(url);
    const text = await answer.text();
    return { status: answer.status, body: text.length > 0 ? (JSON.parse(text) as unknown) : undefined };
  } catch {
    return undefined;
  }
}

/** One row per output of the group that listens on a port of its own. */
interface ListeningKind {
  kind: string;
  /** The output's name: the key of its status line and of the write's 500. */
  name: string;
  hold: () => Promise<Holder>;
  env(port: number): Record<string, string>;
  /** A write that makes the output listen on `port`. */
  moveTo(run: Running, port: number): Promise<WriteAnswer>;
  /** Whether a peer gets the output's answer on `port`. */
  answers(run: Running, port: number): Promise<boolean>;
  /** The port facts of a line that serves `port`. */
  facts(port: number): Record<string, unknown>;
}

const KINDS: ListeningKind[] = [
  {
    kind: 'Shelly UDP',
    name: 'shelly_udp',
    hold: holdUdp,
    env: (port) => ({
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true',
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORT: String(port),
    }),
    moveTo: (run, port) =>
      putJson(run.base, '/api/v1/settings', { services: { emulate: { shelly: { udp_port: port } } } }),
    answers: async (_run, port) => (await askUdp(port)) !== undefined,
    facts: (port) => ({ host: '127.0.0.1', ports: [port], meter: 'main', meter_running: true }),
  },
  {
    kind: 'HomeWizard own port',
    name: 'homewizard',
    hold: holdTcp,
    env: (port) => ({
      METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true',
      METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_PORT: String(port),
    }),
    moveTo: (run, port) =>
      putJson(run.base, '/api/v1/settings', { services: { emulate: { homewizard: { port } } } }),
    answers: async (_run, port) => (await getJson(`http://127.0.0.1:${port}/api`))?.status === 200,
    facts: (port) => ({ host: '127.0.0.1', port, meter: 'main', meter_running: true }),
  },
];

/** The line with exactly the state and the facts of an output that serves as configured. */
function servingLine(row: ListeningKind, port: number): Record<string, unknown> {
  return { state: 'running', ...row.facts(port) };
}

for (const row of KINDS) {
  test(`${row.kind}: a start on a busy port is retrying until the port is freed; a write it cannot take up answers 500 naming ${row.name}; the line is clean after the fix`, async () => {
    const busy = await row.hold();
    const holders = [busy];
    const run = await startDaemon(row.env(busy.port));
    try {
      const failed = run.services()[row.name];
      assert.equal(failed?.state, 'retrying', JSON.stringify(failed));
      assert.match(String(failed?.error), /EADDRINUSE/);
      assert.equal(typeof failed?.retry_in_ms, 'number');

      await busy.release();
      await waitFor(
        `${row.name} to run once its port is free`,
        () => run.line(row.name),
        (line) => JSON.stringify(line) === JSON.stringify(servingLine(row, busy.port)),
      );
      assert.ok(await row.answers(run, busy.port));

      const second = await row.hold();
      holders.push(second);
      const answer = await row.moveTo(run, second.port);
      assert.equal(answer.status, 500, JSON.stringify(answer.body));
      assert.equal(answer.body.error, 'internal_error');
      assert.equal(answer.body.details?.saved, true);
      assert.deepEqual(
        answer.body.details?.failed?.map((failure) => failure.output),
        [row.name],
      );
      assert.match(String(answer.body.details?.failed?.[0]?.message), /EADDRINUSE/);
      assert.equal(run.services()[row.name]?.state, 'retrying');

      await second.release();
      await waitFor(
        `${row.name} to run after the fix, without the failure fields`,
        () => run.line(row.name),
        (line) => JSON.stringify(line) === JSON.stringify(servingLine(row, second.port)),
      );
      assert.ok(await row.answers(run, second.port));
    } finally {
      await run.close();
      for (const holder of holders) await holder.release();
    }
  });
}

/** A DSMR 5 telegram whose total import power is `kw`, with its CRC (NEN-EN-IEC 62056-21 framing, DSMR 5.0.2 §6.12). */
function dsmrTelegram(kw: number): string {
  const body = [
    '/ISK5\\2M550T-1012',
    '',
    '1-3:0.2.8(50)',
    '0-0:1.0.0(240101120000W)',
    '0-0:96.1.1(4530303435303033383833343439383137)',
    '1-0:1.8.1(000123.456*kWh)',
    '1-0:1.8.2(000234.567*kWh)',
    '1-0:2.8.1(000011.111*kWh)',
    '1-0:2.8.2(000022.222*kWh)',
    '0-0:96.14.0(0001)',
    `1-0:1.7.0(${kw.toFixed(3).padStart(6, '0')}*kW)`,
    '1-0:2.7.0(00.000*kW)',
    '!',
  ].join('\r\n');
  return `${body}${crcHex(crc16Arc(Buffer.from(body, 'latin1')))}\r\n`;
}

test('HomeWizard and Shelly UDP follow their configured further meter when it is edited', async () => {
  const udpPort = await freeUdpPort();
  const pv = { id: 'pv', name: 'PV', role: 'pv', source: 'simulator', timeout: 10 };
  const run = await startDaemon({
    METER_GATEWAY_METERS: JSON.stringify([pv]),
    METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true',
    METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_METER: 'pv',
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true',
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_METER: 'pv',
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORT: String(udpPort),
  });
  try {
    const data = () => getJson(`${run.base}/api/v1/data`);
    await waitFor(
      'the personality to serve the simulated pv meter',
      async () => ({ answer: await data(), services: run.services() }),
      ({ answer }) => answer?.status === 200,
    );
    assert.deepEqual(run.line('homewizard'), { state: 'running', meter: 'pv', meter_running: true });

    // The meter edited: another source, so its input restarts with a new store (a new handle).
    const file = join(run.stateDir, 'pv.txt');
    writeFileSync(file, dsmrTelegram(1.234), 'latin1');
    const edited = await putJson(run.base, '/api/v1/settings', {
      meters: [{ ...pv, source: `file:${file}?interval=0.2&loop=true&protocol=dsmr` }],
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    await waitFor(
      'HomeWizard to serve the edited meter',
      data,
      (answer) => (answer?.body as { active_power_w?: number } | undefined)?.active_power_w === 1234,
    );
    await waitFor(
      'Shelly UDP to serve the edited meter',
      () => askUdp(udpPort),
      (result) => result?.total_act_power === 1234,
    );
    const telegram = await waitFor(
      'the raw telegram of the new store',
      async () => {
        const answer = await fetch(`${run.base}/api/v1/telegram`);
        return { status: answer.status, text: await answer.text() };
      },
      (answer) => answer.status === 200,
    );
    assert.match(telegram.text, /1-0:1\.7\.0\(01\.234\*kW\)/);

    assert.deepEqual(run.line('homewizard'), { state: 'running', meter: 'pv', meter_running: true });
    assert.deepEqual(run.line('shelly_udp'), {
      state: 'running',
      host: '127.0.0.1',
      ports: [udpPort],
      meter: 'pv',
      meter_running: true,
    });
  } finally {
    await run.close();
  }
});

test('mDNS: switched off it is disabled; on, its line shows the host and the services it announces, following the port facts of the other outputs', async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-runner-mdns-'));
  const context = createAppContext({
    env: { METER_GATEWAY_SYSTEM_HOST_NAME: 'gw-runner', METER_GATEWAY_SERVICES_BROADCAST: 'false' },
    stateDir,
    logger: silentLogger(),
  });
  // Unicast on loopback only: no multicast group is joined, answers go back to 127.0.0.1.
  const announcer = new MdnsAnnouncer(context, context.logger, {
    port: await freeUdpPort(),
    ip: '127.0.0.1',
    interface: '127.0.0.1',
    bind: '127.0.0.1',
    multicast: false,
  });
  const output = runOutput(context, announcer);
  context.services.set('http', { state: 'running', host: '127.0.0.1', port: 8080 });
  await output.start();
  t.after(async () => {
    await output.stop();
    context.store.close();
    rmSync(stateDir, { recursive: true, force: true });
  });
  assert.deepEqual(context.services.get('mdns'), { state: 'disabled' });

  const on = context.config.apply(new Map([['services.broadcast', true]]));
  assert.ok(on.ok);
  assert.deepEqual(await on.settled, []);
  assert.deepEqual(context.services.get('mdns'), {
    state: 'running',
    host: 'gw-runner.local',
    services: ['_http._tcp'],
  });
  // Another output's port fact: announced while it runs, taken back when it is retried.
  context.services.set('modbus', { state: 'running', port: 1502 });
  assert.deepEqual(context.services.get('mdns')?.services, ['_http._tcp', '_modbus._tcp']);
  context.services.set('modbus', { state: 'retrying', error: 'EADDRINUSE', port: 1502 });
  assert.deepEqual(context.services.get('mdns')?.services, ['_http._tcp']);

  const off = context.config.apply(new Map([['services.broadcast', false]]));
  assert.ok(off.ok);
  assert.deepEqual(await off.settled, []);
  assert.deepEqual(context.services.get('mdns'), { state: 'disabled' });
});

/**
 * An `nmcli` on PATH that takes `seconds` to add a connection profile and answers every call with
 * success and no output: the network output's apply outlasts a short apply deadline. No real
 * network setting is touched.
 */
function slowNmcli(seconds: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'mg-runner-nmcli-'));
  const script = ['#!/bin/sh', `if [ "$1 $2" = "connection add" ]; then sleep ${seconds}; fi`, 'exit 0', ''];
  writeFileSync(join(dir, 'nmcli'), script.join('\n'));
  chmodSync(join(dir, 'nmcli'), 0o755);
  return dir;
}

test('network: a station write that outlasts http.apply_timeout_ms answers 202 applying naming network; its line then shows running with the link the backend reported', async () => {
  const nmcli = slowNmcli(1);
  const path = process.env.PATH;
  // The daemon finds nmcli on PATH when it starts (the Wi-Fi backend keeps its absolute path).
  process.env.PATH = `${nmcli}:${path ?? ''}`;
  let run: Running;
  try {
    run = await startDaemon({ METER_GATEWAY_HTTP_APPLY_TIMEOUT_MS: '100' });
  } finally {
    process.env.PATH = path;
  }
  try {
    await waitFor(
      'the first apply',
      () => run.line('network'),
      (line) => line?.state === 'running',
    );
    const answer = await putJson(run.base, '/api/v1/wifi/sta/settings', {
      enable: true,
      name: 'slow-net',
      password: 'pass-word-1',
    });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { state: 'applying', outputs: ['network'] });
    const line = await waitFor(
      'the network output to run the new station',
      () => run.line('network'),
      (status) =>
        status?.state === 'running' && (status.wifi as { link?: string } | undefined)?.link === 'connected',
    );
    assert.equal(line?.error, undefined);
  } finally {
    await run.close();
    rmSync(nmcli, { recursive: true, force: true });
  }
});
