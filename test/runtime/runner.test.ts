import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAppContext, type AppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { createMqttService, type MqttView } from '../../src/mqtt/publisher.js';
import { runOutput } from '../../src/output-runner.js';
import { meterLookup, type DeclaredOutput } from '../../src/output.js';
import { linesLogger } from '../helpers/log-lines.js';
import { freePort, freeUdpPort } from '../helpers/ports.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { waitFor } from '../helpers/wait.js';
import { putJson, startDaemon, type Running, type WriteAnswer } from './runner-rig.js';

// The runner's failure model (docs/architecture.md#output-contract): a failed start is retried
// until its cause goes away, a write that an output cannot take up answers 500 naming it, one that
// outlasts http.apply_timeout_ms answers 202 applying, and the error record goes with its cause.

registerConfigFormats();

/** A port held by another program, as the outputs meet it: a TCP listener or a bound UDP socket. */
interface Holder {
  port: number;
  release(): Promise<void>;
}

async function holdTcp(port?: number): Promise<Holder> {
  const server: Server = createServer((socket) => socket.destroy());
  server.listen(port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    release: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function holdUdp(port?: number): Promise<Holder> {
  const socket: UdpSocket = createSocket({ type: 'udp4', reuseAddr: false });
  socket.bind(port ?? (await freeUdpPort()), '127.0.0.1');
  await once(socket, 'listening');
  return {
    port: socket.address().port,
    release: async () => {
      socket.close();
      await once(socket, 'close');
    },
  };
}

/** A Shelly UDP request answered: the transport runs on `port`. */
async function answersUdp(port: number): Promise<boolean> {
  const client = createSocket('udp4');
  try {
    client.send(JSON.stringify({ id: 1, method: 'EM.GetStatus', params: { id: 0 } }), port, '127.0.0.1');
    const answer = await Promise.race([
      once(client, 'message').then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 300)),
    ]);
    return answer;
  } finally {
    client.close();
  }
}

/** The outputs a 500 names, and the first one's reason. */
function failedOutputs(answer: WriteAnswer): { outputs: string[]; first: string } {
  const failed = answer.body.details?.failed ?? [];
  return { outputs: failed.map((failure) => failure.output), first: failed[0]?.message ?? '' };
}

/**
 * One row per output kind that listens on a port of its own: how it is started on a port, how a
 * write moves it, and how the test sees it serve.
 */
interface ListeningKind {
  kind: string;
  /** The output's name: the key of its service line and of the runner's record. */
  name: string;
  hold: (port?: number) => Promise<Holder>;
  env(port: number): Record<string, string>;
  /** Makes the output leave its port, when the next one is the same (a daemon setting). */
  release?: (run: Running) => Promise<void>;
  /** A write that makes the output listen on `port` (it ran elsewhere or was off before). */
  moveTo(run: Running, port: number): Promise<WriteAnswer>;
  serving(run: Running, port: number): Promise<boolean>;
}

const KINDS: ListeningKind[] = [
  {
    kind: 'Modbus TCP slave',
    name: 'modbus',
    hold: holdTcp,
    env: (port) => ({
      METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
      METER_GATEWAY_SERVICES_MODBUS_PORT: String(port),
    }),
    moveTo: (run, port) => putJson(run.base, '/api/v1/settings', { services: { modbus: { port } } }),
    serving: async (run, port) => {
      const line = run.services().modbus;
      return line?.state === 'running' && line.port === port && line.error === undefined;
    },
  },
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
    // No line of its own: the runner's error record is gone (a count of failed writes may stay) and
    // the port answers.
    serving: async (run, port) => {
      const line = run.services().shelly_udp;
      return (line === undefined || (line.state !== 'error' && line.error === undefined)) && answersUdp(port);
    },
  },
  {
    kind: 'meter proxy',
    name: 'meter_proxy',
    hold: holdTcp,
    env: (port) => ({
      METER_GATEWAY_SERVICES_METER_PROXY: 'true',
      METER_GATEWAY_METER_PROXY_PORT: String(port),
    }),
    // meter_proxy.port is a daemon setting: the proxy is switched off, its port taken, and on again.
    release: async (run) => {
      const off = await putJson(run.base, '/api/v1/settings', { services: { meter_proxy: false } });
      assert.equal(off.status, 200, JSON.stringify(off.body));
    },
    moveTo: (run) => putJson(run.base, '/api/v1/settings', { services: { meter_proxy: true } }),
    serving: async (run, port) => {
      const line = run.services().meter_proxy;
      return line?.state === 'running' && line.port === port && line.error === undefined;
    },
  },
];

/** The states of an output whose last attempt failed: `error` (a reconciled output), `retrying` (a declared one). */
const FAILED = new Set(['error', 'retrying']);

for (const row of KINDS) {
  test(`${row.kind}: a start on a busy port recovers when the port is freed; a write it cannot take up answers 500 naming ${row.name}; the error record goes after the fix`, async () => {
    const busy = await row.hold();
    const run = await startDaemon(row.env(busy.port));
    try {
      const failed = run.services()[row.name];
      // A declared output that failed and is retried shows `retrying` (docs/architecture.md#output-contract).
      assert.ok(FAILED.has(String(failed?.state)), JSON.stringify(run.services()));
      assert.match(String(failed?.error), /EADDRINUSE/);

      await busy.release();
      await waitFor(`${row.name} to serve once its port is free`, () => row.serving(run, busy.port));

      // The meter proxy is switched off and on in place; the others move to a port in use.
      await row.release?.(run);
      const second = row.release ? await row.hold(busy.port) : await row.hold();
      const answer = await row.moveTo(run, second.port);
      assert.equal(answer.status, 500, JSON.stringify(answer.body));
      assert.equal(answer.body.error, 'internal_error');
      assert.equal(answer.body.details?.saved, true);
      assert.deepEqual(failedOutputs(answer).outputs, [row.name]);
      assert.match(failedOutputs(answer).first, /EADDRINUSE/);
      assert.ok(FAILED.has(String(run.services()[row.name]?.state)));

      await second.release();
      await waitFor(`${row.name} to serve after the fix`, () => row.serving(run, second.port));
    } finally {
      await run.close();
    }
  });
}

test('meter input: a source that cannot be opened answers 500 naming meter; it opens once the peer is there', async () => {
  const run = await startDaemon({});
  let peer: Holder | undefined;
  try {
    const port = await freePort();
    const answer = await putJson(run.base, '/api/v1/meter/settings', { source: `tcp://127.0.0.1:${port}` });
    assert.equal(answer.status, 500, JSON.stringify(answer.body));
    assert.deepEqual(failedOutputs(answer).outputs, ['meter']);
    assert.match(failedOutputs(answer).first, /ECONNREFUSED/);
    const accepted: Socket[] = [];
    const server = createServer((socket) => accepted.push(socket));
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    peer = {
      port,
      release: () =>
        new Promise<void>((resolve) => {
          for (const socket of accepted) socket.destroy();
          server.close(() => resolve());
        }),
    };
    const line = await waitFor(
      'the meter input to open the source',
      () => run.services().meter,
      (status) => status?.state === 'running' && status.link === 'open',
    );
    assert.equal(line?.source, `tcp://127.0.0.1:${port}`);
  } finally {
    await run.close();
    await peer?.release();
  }
});

test('a write that outlasts http.apply_timeout_ms answers 202 applying naming the outputs at work; the status then shows the output running', async () => {
  // Another gateway whose live stream answers only when the test lets it: the meter input's open waits.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const streams: ServerResponse[] = [];
  const remote = createHttpServer((request, response) => {
    if (request.url !== '/api/v1/live') {
      response.writeHead(404).end();
      return;
    }
    streams.push(response);
    void held.then(() => response.writeHead(200, { 'Content-Type': 'text/event-stream' }).write(': hi\n\n'));
  });
  remote.listen(0, '127.0.0.1');
  await once(remote, 'listening');
  const remotePort = (remote.address() as { port: number }).port;
  const run = await startDaemon({ METER_GATEWAY_HTTP_APPLY_TIMEOUT_MS: '300' });
  try {
    const source = `http://127.0.0.1:${remotePort}/api/v1/live`;
    const answer = await putJson(run.base, '/api/v1/meter/settings', { source });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { state: 'applying', outputs: ['meter'] });
    assert.equal(run.daemon.context.config.config.meter.source, source, 'the change is stored');
    release();
    await waitFor(
      'the meter input to run on the new source',
      () => run.services().meter,
      (status) => status?.state === 'running' && status.link === 'open' && status.source === source,
    );
  } finally {
    release();
    await run.close();
    for (const stream of streams) stream.destroy();
    remote.closeAllConnections();
    await new Promise<void>((resolve) => remote.close(() => resolve()));
  }
});

type MqttSlice = MqttView;

test('MQTT link: options the client cannot use make the apply reject; usable ones are applied on the next attempt', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-runner-mqtt-'));
  const ctx: AppContext = createAppContext({ stateDir, logger: linesLogger([]) });
  const mqtt = createMqttService(ctx);
  const slice = (url: string): MqttSlice => ({
    ...mqtt.select(ctx.config.config, meterLookup(ctx.meters)),
    mqtt: { ...ctx.config.config.mqtt, enable: true, url },
  });
  const reported: string[] = [];
  try {
    await mqtt.start({ facts: () => undefined, trouble: (reason) => reported.push(String(reason)) });
    // The settings rules refuse such a URL on every writer; the link is checked all the same.
    await assert.rejects(Promise.resolve(mqtt.apply({ slice: slice('ftp://127.0.0.1') }, undefined)), /url/);
    // The same view again is a new attempt, not "nothing changed".
    await assert.rejects(Promise.resolve(mqtt.apply({ slice: slice('ftp://127.0.0.1') }, undefined)), /url/);
    const port = await freePort();
    const facts = await mqtt.apply({ slice: slice(`mqtt://127.0.0.1:${port}`) }, undefined);
    assert.equal(facts?.broker, `mqtt://127.0.0.1:${port}`);
    assert.ok(mqtt.linkStatus(), 'a link exists');
  } finally {
    await mqtt.stop();
    ctx.store.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('the runner retries a failed start with capped backoff on the clock, at once on a settings change; a required output still fails its start', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-runner-unit-'));
  const clock = new VirtualClock();
  const ctx = createAppContext({ stateDir, clock, logger: linesLogger([]) });
  let broken = true;
  let attempts = 0;
  const output = (required: boolean): DeclaredOutput<boolean, Record<never, never>, string> => ({
    name: required ? 'needed' : 'flaky',
    required,
    watches: ['services.sd'],
    select: (config) => config.services.sd.enable,
    apply() {
      attempts += 1;
      if (broken) throw new Error('port in use');
    },
    start: async () => undefined,
    stop: async () => undefined,
  });
  const flaky = runOutput(ctx, output(false));
  try {
    await flaky.start();
    assert.equal(attempts, 1);
    assert.deepEqual(ctx.services.get('flaky'), {
      state: 'retrying',
      error: 'port in use',
      retry_in_ms: 1000,
    });
    const delays: number[] = [];
    for (let step = 0; step < 7; step += 1) {
      const next = clock.nextDue()! - clock.now();
      delays.push(next);
      await clock.advance(next);
    }
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    assert.equal(attempts, 8);
    // A settings change tries again at once, without waiting for the timer.
    broken = false;
    const write = ctx.config.apply(new Map([['services.sd.enable', true]]));
    assert.ok(write.ok);
    assert.deepEqual(await write.settled, []);
    assert.equal(attempts, 9);
    assert.deepEqual(
      ctx.services.get('flaky'),
      { state: 'running' },
      'the failure fields are gone with their cause',
    );
    assert.equal(clock.nextDue(), undefined, 'no retry left');

    broken = true;
    await assert.rejects(runOutput(ctx, output(true)).start(), /port in use/);
    assert.equal(clock.nextDue(), undefined, 'a required part that failed is not retried: start-up ends');
  } finally {
    await flaky.stop();
    ctx.store.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
});
