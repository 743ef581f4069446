import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { shellyRpcOf } from '../../../src/http/routes/shelly.js';
import { ShellyUdp, SHELLY_UDP_LIMIT, UDP_BURST, decimal } from '../../../src/device/shelly/udp.js';
import { runOutput } from '../../../src/output-runner.js';
import { valuesOf, type Reading } from '../../../src/reading/reading.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../../helpers/http-context.js';
import { waitFor } from '../../helpers/wait.js';
import { freeUdpPort } from '../../helpers/ports.js';

/**
 * The Shelly personality's UDP JSON-RPC as the Marstek and Hoymiles batteries poll it: the request
 * frame of the published emulators' tests (tomquist/b2500-meter shelly_udp_test.py:
 * `{"id": i, "src": "cli", "method": "EM.GetStatus", "params": {"id": 0}}`, and the Venus's
 * `{"id":1,"method":"EM.GetStatus","params":{"id":0}}` without src), answered byte for byte.
 */

async function withUdp(
  fn: (server: HttpTestContext, udp: ShellyUdp, port: number, second: number) => Promise<void>,
): Promise<void> {
  const port = await freeUdpPort();
  const second = await freeUdpPort();
  const server = await startHttpContext({
    env: {
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true',
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORT: String(port),
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORTS: String(second),
    },
    clockFrozen: true,
  });
  const udp = new ShellyUdp(shellyRpcOf(server.ctx), server.ctx.logger, server.ctx.clock);
  const running = runOutput(server.ctx, udp);
  await running.start();
  try {
    await fn(server, udp, port, second);
  } finally {
    await running.stop();
    await server.close();
  }
}

/** Sends a datagram and resolves with the next datagram that comes back (as text). */
function ask(client: Socket, port: number, frame: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    client.once('message', (message: Buffer) => resolve(message.toString('utf8')));
    client.send(frame, port, '127.0.0.1');
  });
}

async function bound(): Promise<Socket> {
  const client = createSocket('udp4');
  await new Promise<void>((resolve) => client.bind(0, '127.0.0.1', resolve));
  return client;
}

function reading(receivedAt: number, entries: Record<string, [number, string]>): Reading {
  return { ...syntheticReading(receivedAt), values: valuesOf(entries) };
}

test('decimal: every power with a decimal point, zero as 0.0', () => {
  assert.equal(decimal(500), '500.0');
  assert.equal(decimal(0), '0.0');
  assert.equal(decimal(-0), '0.0');
  assert.equal(decimal(-500), '-500.0');
  assert.equal(decimal(12.5), '12.5');
  assert.equal(decimal(2412.001), '2412.001');
});

test('UDP: import, export and zero phases answered byte for byte on both ports', () =>
  withUdp(async ({ ctx, clock }, udp, port, second) => {
    assert.deepEqual(udp.addresses(), [port, second]);
    const client = await bound();
    try {
      ctx.store.ingest(syntheticReading(clock.now()));
      const venus = '{"id":1,"method":"EM.GetStatus","params":{"id":0}}';
      assert.equal(
        await ask(client, port, venus),
        '{"id":1,"src":"shellypro3em-a1b2c3d4e5f6","result":{"id":0,"a_act_power":962.0,"b_act_power":703.0,"c_act_power":747.0,"total_act_power":2412.0}}',
      );
      // Export on one phase, the others at zero.
      clock.advance(1000);
      ctx.store.ingest(
        reading(clock.now(), {
          '1.7.0': [0, 'kW'],
          '2.7.0': [0.5, 'kW'],
          '21.7.0': [0, 'kW'],
          '22.7.0': [0.5, 'kW'],
          '41.7.0': [0, 'kW'],
          '42.7.0': [0, 'kW'],
          '61.7.0': [0, 'kW'],
          '62.7.0': [0, 'kW'],
        }),
      );
      const b2500 = '{"id": 7, "src": "cli", "method": "EM.GetStatus", "params": {"id": 0}}';
      assert.equal(
        await ask(client, second, b2500),
        '{"id":7,"src":"shellypro3em-a1b2c3d4e5f6","dst":"cli","result":{"id":0,"a_act_power":-500.0,"b_act_power":0.0,"c_act_power":0.0,"total_act_power":-500.0}}',
      );
      // A single-phase meter: the phases it lacks are 0.0, the total is the meter's.
      clock.advance(1000);
      ctx.store.ingest(reading(clock.now(), { '1.7.0': [0.1234, 'kW'], '2.7.0': [0, 'kW'] }));
      assert.equal(
        await ask(client, port, venus),
        '{"id":1,"src":"shellypro3em-a1b2c3d4e5f6","result":{"id":0,"a_act_power":0.0,"b_act_power":0.0,"c_act_power":0.0,"total_act_power":123.4}}',
      );
    } finally {
      client.close();
    }
  }));

test('UDP: garbage, other methods, other components and a stale meter get no answer at all', () =>
  withUdp(async ({ ctx, clock }, udp, port) => {
    const client = await bound();
    const answers: string[] = [];
    client.on('message', (message: Buffer) => answers.push(message.toString('utf8')));
    try {
      ctx.store.ingest(syntheticReading(clock.now()));
      const garbage = [
        Buffer.from([0, 1, 2, 3]),
        'EM.GetStatus',
        '{"id":',
        '[1,2,3]',
        'null',
        '{"id":1}',
        '{"method":"EM.GetStatus"}',
        '{"id":1,"method":"Shelly.GetDeviceInfo"}',
        '{"id":1,"method":"Shelly.GetStatus"}',
        '{"id":1,"method":"EM.GetStatus","params":{"id":1}}',
        '{"id":1,"method":"EM.GetStatus","params":7}',
        '{"id":{"a":1},"method":"EM.GetStatus"}',
        Buffer.alloc(SHELLY_UDP_LIMIT + 1, 0x20),
      ];
      for (const datagram of garbage) client.send(datagram, port, '127.0.0.1');
      // The datagrams are read in order: once the valid one is answered, the others were dropped.
      client.send('{"id":99,"method":"EM.GetStatus"}', port, '127.0.0.1');
      await waitFor(
        'the valid request answered',
        () => answers.length,
        (count) => count > 0,
      );
      assert.equal(answers.length, 1);
      assert.match(answers[0]!, /^\{"id":99,/);
      assert.equal(udp.ignored, garbage.length - 1);
      assert.equal(udp.oversized, 1);
      ctx.store.expire();
      client.send('{"id":100,"method":"EM.GetStatus"}', port, '127.0.0.1');
      client.send('{"id":101,"method":"Shelly.GetDeviceInfo"}', port, '127.0.0.1');
      await waitFor(
        'the requests to the stale meter read',
        () => udp.ignored,
        (count) => count === garbage.length + 1,
      );
      assert.equal(answers.length, 1);
    } finally {
      client.close();
    }
  }));

test('UDP: a source gets at most its burst of answers while the clock stands, a forged port 0 is dropped', () =>
  withUdp(async ({ ctx, clock }, udp, port) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    const client = await bound();
    try {
      for (let i = 0; i < UDP_BURST * 3; i++)
        client.send(`{"id":${i},"method":"EM.GetStatus"}`, port, '127.0.0.1');
      await waitFor(
        'every request read',
        () => udp.answered + udp.limited,
        (count) => count === UDP_BURST * 3,
      );
      assert.equal(udp.answered, UDP_BURST);
      assert.equal(udp.limited, UDP_BURST * 2);
      // A second later the source has UDP_RATE answers again.
      clock.advance(1000);
      assert.match(await ask(client, port, '{"id":"again","method":"EM.GetStatus"}'), /^\{"id":"again",/);
      // A datagram "from" port 0 (only a forged one says so) is dropped, not answered to a bad port.
      const socket = (udp as unknown as { sockets: Socket[] }).sockets[0]!;
      const receive = (udp as unknown as { receive: (...args: unknown[]) => void }).receive.bind(udp);
      const before = udp.ignored;
      receive(socket, Buffer.from('{"id":1,"method":"EM.GetStatus"}'), {
        address: '127.0.0.2',
        port: 0,
        family: 'IPv4',
        size: 32,
      });
      assert.equal(udp.ignored, before + 1);
    } finally {
      client.close();
    }
  }));

function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

test('a UDP flood (valid, malformed and oversized datagrams) is answered or dropped with no growth in memory', () =>
  withUdp(async ({ ctx, clock }, udp, port) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    const client = await bound();
    const frames = [
      Buffer.from('{"id":1,"method":"EM.GetStatus","params":{"id":0}}'),
      Buffer.from('{"id":'),
      Buffer.alloc(SHELLY_UDP_LIMIT + 1000, 0x20),
    ];
    const round = async (count: number) => {
      for (let i = 0; i < count; i++) {
        client.send(frames[i % 3]!, port, '127.0.0.1');
        if (i % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await waitFor(
        'the flood to be read',
        () => udp.answered + udp.oversized,
        (n) => n > 0,
      );
    };
    try {
      await round(6000);
      collectGarbage();
      const before = process.memoryUsage().heapUsed;
      await round(30_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      collectGarbage();
      const grown = process.memoryUsage().heapUsed - before;
      assert.ok(udp.oversized > 0, 'oversized datagrams are dropped and counted');
      assert.ok(udp.limited > 0, 'the flood is rate-limited');
      assert.ok(grown < 4 * 1024 * 1024, `heap grew by ${grown} bytes over 30000 datagrams`);
      // Still answering once the source's bucket refilled.
      clock.advance(10_000);
      assert.match(await ask(client, port, '{"id":9,"method":"EM.GetStatus"}'), /^\{"id":9,/);
    } finally {
      client.close();
    }
  }));
