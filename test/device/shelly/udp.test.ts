import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { shellyRpcOf } from '../../../src/http/routes/shelly.js';
import { ShellyUdp, SHELLY_UDP_LIMIT } from '../../../src/device/shelly/udp.js';
import { emStatus } from '../../../src/device/shelly/em-status.js';
import { viewOf } from '../../../src/output.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../../helpers/http-context.js';
import { waitFor } from '../../helpers/wait.js';
import { freeUdpPort } from '../../helpers/ports.js';

/** A UDP port free right now (bound to 0 and released). */

async function withUdp(
  fn: (server: HttpTestContext, udp: ShellyUdp, port: number) => Promise<void>,
): Promise<void> {
  const port = await freeUdpPort();
  const server = await startHttpContext({
    env: {
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true',
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORT: String(port),
    },
    clockFrozen: true,
  });
  const udp = new ShellyUdp(shellyRpcOf(server.ctx), server.ctx.logger);
  await udp.reconcile(viewOf(udp, server.ctx.config.config));
  try {
    await fn(server, udp, port);
  } finally {
    await udp.stop();
    await server.close();
  }
}

/** Sends a frame and waits for the answer with the frame's id (null for an unparsable frame). */
function ask(
  client: Socket,
  port: number,
  frame: string,
  id: number | null,
): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const onMessage = (message: Buffer): void => {
      const answer = JSON.parse(message.toString('utf8')) as Record<string, unknown>;
      if (answer.id !== id) return;
      client.off('message', onMessage);
      resolve(answer);
    };
    client.on('message', onMessage);
    client.send(frame, port, '127.0.0.1');
  });
}

test('UDP JSON-RPC: the frame the Marstek emulators document is answered with EM.GetStatus of the meter', () =>
  withUdp(async ({ ctx, clock }, udp, port) => {
    assert.equal(udp.address(), port);
    ctx.store.ingest(syntheticReading(clock.now()));
    const client = createSocket('udp4');
    try {
      const answer = await ask(client, port, '{"id":1,"method":"EM.GetStatus","params":{"id":0}}', 1);
      assert.deepEqual(answer.result, emStatus(ctx.store.latest));
      const unknown = await ask(client, port, '{"id":2,"method":"EM1.Nope","params":{"id":0}}', 2);
      assert.deepEqual(unknown.error, { code: 404, message: 'No handler for EM1.Nope' });
      const malformed = await ask(client, port, 'EM.GetStatus', null);
      assert.equal((malformed.error as { code: number }).code, -32700);
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
    const client = createSocket('udp4');
    await new Promise<void>((resolve) => client.bind(0, '127.0.0.1', resolve));
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
      assert.ok(grown < 4 * 1024 * 1024, `heap grew by ${grown} bytes over 30000 datagrams`);
      // Still answering.
      const answer = await ask(client, port, '{"id":9,"method":"Shelly.GetDeviceInfo"}', 9);
      assert.equal((answer.result as { app: string }).app, 'Pro3EM');
    } finally {
      client.close();
    }
  }));
