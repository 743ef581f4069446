import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { test } from 'node:test';
import { createModbusService } from '../../src/modbus/service.js';
import { accepts, closeClient, connectClient, readWords } from './clients.js';
import { freePort, makeContext, modbusEnv, syntheticReading } from './fixtures.js';
import { runOutput } from '../../src/output-runner.js';
import { waitFor } from '../helpers/wait.js';

test(
  'enable, port move and disable apply live; the service line reports state and counters',
  { timeout: 15_000 },
  async (t) => {
    const { ctx, cleanup } = makeContext();
    const service = createModbusService(ctx, { host: '127.0.0.1' });
    const running = runOutput(ctx, service);
    t.after(async () => {
      await running.stop();
      cleanup();
    });
    await running.start();
    assert.equal(ctx.services.get('modbus')?.state, 'disabled');

    const first = await freePort();
    ctx.config.apply(
      new Map<string, unknown>([
        ['services.modbus.port', first],
        ['services.modbus.enable', true],
      ]),
    );
    await listeningOn(service, first);
    ctx.store.ingest(syntheticReading());
    const client = await connectClient(first);
    assert.equal((await readWords(client, 1, 2)).readFloatBE(0), Math.fround(230.1));
    await client.readHoldingRegisters(0, 1).catch(() => undefined);
    // The counters reach the status line within a second (COUNTERS_EVERY_MS), never per request.
    const status = await waitFor(
      'the counters on the status line',
      () => JSON.parse(JSON.stringify(ctx.services.snapshot().modbus)) as Record<string, unknown>,
      (line) => line.requests === 2,
    );
    assert.deepEqual(status, {
      state: 'running',
      port: first,
      profile: 'whatwatt',
      connections: 1,
      requests: 2,
      exceptions: 1,
    });
    await closeClient(client);

    const second = await freePort();
    ctx.config.apply(new Map([['services.modbus.port', second]]));
    await listeningOn(service, second);
    assert.equal(await accepts('127.0.0.1', first), false);
    assert.equal(await accepts('127.0.0.1', second), true);
    assert.equal(ctx.services.get('modbus')?.port, second);

    ctx.config.apply(new Map([['services.modbus.enable', false]]));
    await listeningOn(service, undefined);
    assert.equal(await accepts('127.0.0.1', second), false);
    assert.equal(ctx.services.get('modbus')?.state, 'disabled');
  },
);

/** Config changes reconcile asynchronously: waits until the slave listens on `port` (or on none). */
async function listeningOn(service: { listeningPort: number | undefined }, port: number | undefined) {
  await waitFor(
    `the slave to listen on ${port ?? 'no port'}`,
    () => service.listeningPort,
    (seen) => seen === port,
    {
      intervalMs: 5,
    },
  );
}

test('license FREE keeps the slave stopped although it is enabled', { timeout: 15_000 }, async (t) => {
  const port = await freePort();
  const { ctx, cleanup } = makeContext({ env: modbusEnv(port, { METER_GATEWAY_LICENSE_TYPE: 'FREE' }) });
  const service = createModbusService(ctx, { host: '127.0.0.1' });
  const running = runOutput(ctx, service);
  t.after(async () => {
    await running.stop();
    cleanup();
  });
  await running.start();
  assert.equal(service.listeningPort, undefined);
  assert.equal(await accepts('127.0.0.1', port), false);
  assert.deepEqual(JSON.parse(JSON.stringify(ctx.services.get('modbus'))), {
    state: 'blocked',
    port,
    profile: 'whatwatt',
    connections: 0,
    requests: 0,
    exceptions: 0,
  });
});

test(
  'a port in use: start resolves, the state is retrying, a later port change recovers',
  { timeout: 15_000 },
  async (t) => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    t.after(() => blocker.close());
    const busy = (blocker.address() as { port: number }).port;
    const { ctx, cleanup } = makeContext({ env: modbusEnv(busy) });
    const service = createModbusService(ctx, { host: '127.0.0.1' });
    const running = runOutput(ctx, service);
    t.after(async () => {
      await running.stop();
      cleanup();
    });
    await running.start();
    assert.equal(ctx.services.get('modbus')?.state, 'retrying');
    assert.match(String(ctx.services.get('modbus')?.error), /EADDRINUSE/);
    const free = await freePort();
    ctx.config.apply(new Map([['services.modbus.port', free]]));
    await listeningOn(service, free);
    assert.equal(ctx.services.get('modbus')?.state, 'running');
  },
);

test('stop closes open connections and the listener', { timeout: 15_000 }, async (t) => {
  const port = await freePort();
  const { ctx, cleanup } = makeContext({ env: modbusEnv(port) });
  t.after(cleanup);
  const service = createModbusService(ctx, { host: '127.0.0.1' });
  const running = runOutput(ctx, service);
  await running.start();
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  const closed = once(socket, 'close');
  await running.stop();
  await closed;
  assert.equal(await accepts('127.0.0.1', port), false);
  assert.equal(service.listeningPort, undefined);
  // Readings after stop no longer touch the image (listeners removed).
  ctx.store.ingest(syntheticReading());
  assert.ok(Number.isNaN(service.image.bytes.readFloatBE(2)));
});
