import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createModbusService } from '../../src/modbus/service.js';
import { runOutput } from '../../src/output-runner.js';
import { accepts, closeClient, connectClient, readWords } from './clients.js';
import { freePort, makeContext, modbusEnv, syntheticReading } from './fixtures.js';

/**
 * A local address other than 127.0.0.1, still on loopback (test traffic never leaves the machine's
 * loopback range): Linux routes all of 127.0.0.0/8 to the loopback interface, but a socket bound to
 * 127.0.0.1 only accepts connections addressed to 127.0.0.1, so 127.0.0.2 is another address.
 */
const OTHER_LOCAL_ADDRESS = '127.0.0.2';

async function startSlave(host: string | undefined) {
  const port = await freePort();
  const env = modbusEnv(port, host === undefined ? {} : { METER_GATEWAY_MODBUS_TCP_HOST: host });
  const { ctx, cleanup } = makeContext({ env });
  const service = createModbusService(ctx);
  const output = runOutput(ctx, service);
  await output.start();
  ctx.store.ingest(syntheticReading());
  return {
    port,
    service,
    async close() {
      await output.stop();
      cleanup();
    },
  };
}

test('modbus_tcp.host 127.0.0.1: registers answer there, another local address is refused', async (t) => {
  const other = OTHER_LOCAL_ADDRESS;
  const slave = await startSlave('127.0.0.1');
  t.after(() => slave.close());
  assert.equal(slave.service.listeningPort, slave.port);
  const client = await connectClient(slave.port);
  assert.equal((await readWords(client, 1, 2)).readFloatBE(0), Math.fround(230.1));
  await closeClient(client);
  assert.equal(await accepts(other, slave.port), false, `connection to ${other} accepted`);
});

test('modbus_tcp.host empty (the default): the slave answers on every local address', async (t) => {
  const other = OTHER_LOCAL_ADDRESS;
  const slave = await startSlave(undefined);
  t.after(() => slave.close());
  assert.equal(await accepts('127.0.0.1', slave.port), true);
  assert.equal(await accepts(other, slave.port), true, `connection to ${other} refused`);
});
