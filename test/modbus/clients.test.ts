import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { DEFAULT_LAYOUT, toDetailed } from '../../src/modbus/layout.js';
import { requireCommand } from '../helpers/environment.js';
import {
  closeClient,
  connectClient,
  decodeRegister,
  mbpoll,
  mbpollValues,
  readWords,
  startSlave,
} from './clients.js';
import { syntheticReading } from './fixtures.js';

/**
 * Expected register values of the default layout for fixtures.syntheticReading(), in the reading's
 * units (kW, kvar, kWh, V, A), worked out by hand from the device's register identifier table.
 */
const EXPECTED: Record<string, number> = {
  '32.7.0': 230.1,
  '52.7.0': 229.8,
  '72.7.0': 231.4,
  'current.l1': 3.62,
  'current.l2': -1.87, // line 2 exports (42.7.0 > 41.7.0)
  'current.l3': 1.93,
  'power.active.l1': 0.811,
  'power.active.l2': -0.412,
  'power.active.l3': 0.423,
  'power.reactive.l1': 0.201,
  'power.reactive.l2': 0.116,
  'power.reactive.l3': -0.052,
  '9.7.0': 1.301,
  'power.active': 0.822,
  'power.reactive': 0.265,
  '13.7.0': 0.987,
  '96.14.0': 2,
  '1.7.0': 1.234,
  '3.7.0': 0.317,
  '2.7.0': 0.412,
  '4.7.0': 0.052,
  '1.8.0': 35802.467, // t1 + t2 (DSMR sends tariffs only)
  '3.8.0': 802.3,
  '2.8.0': 3580.245,
  '4.8.0': 124.67,
  '1.8.1': 12345.678,
  '1.8.2': 23456.789,
  '2.8.1': 1234.567,
  '2.8.2': 2345.678,
  '3.8.1': 345.6,
  '3.8.2': 456.7,
  '4.8.1': 56.78,
  '4.8.2': 67.89,
  '0': 0,
};

/** float: within one float32 ulp; double: a few double ulps; integers exact. */
function assertClose(actual: number, expected: number, type: string, what: string): void {
  const tolerance = type === 'float' ? 2 ** -23 : type === 'double' ? 1e-15 : 0;
  assert.ok(
    Math.abs(actual - expected) <= Math.abs(expected) * tolerance,
    `${what}: got ${actual}, expected ${expected}`,
  );
}

test('modbus-serial reads the default layout: every register = reading value x 10^scaler', async (t) => {
  const slave = await startSlave();
  t.after(() => slave.stop());
  slave.ctx.store.ingest(syntheticReading());
  const client = await connectClient(slave.port, 17);
  t.after(() => closeClient(client));
  let checked = 0;
  for (const set of toDetailed(DEFAULT_LAYOUT, 'dec')) {
    const start = set.start_address as number;
    const bytes = await readWords(client, start, set.size);
    for (const register of set.registers) {
      const raw = EXPECTED[register.id];
      assert.notEqual(raw, undefined, `no expectation for ${register.id}`);
      const value = decodeRegister(bytes, (register.address as number) - start, register.type!, 'msw');
      assertClose(
        value,
        raw! * 10 ** register.scaler!,
        register.type!,
        `${register.id} at ${register.address}`,
      );
      checked += 1;
    }
  }
  assert.equal(checked, 91); // 21 + 8 + 8 + 10 + 4 + 40 registers
  // Addresses outside every set read 0.
  assert.match((await readWords(client, 43, 12)).toString('hex'), /^0+$/);
  assert.match((await readWords(client, 961, 125)).toString('hex'), /^0+$/);
});

test('mbpoll reads voltages, currents and powers of the default layout (msw = mbpoll -B)', async (t) => {
  if (!requireCommand(t, 'mbpoll')) return;
  const slave = await startSlave();
  t.after(() => slave.stop());
  slave.ctx.store.ingest(syntheticReading());
  // mbpoll references are 1-based: reference 2 is PDU address 1, the first default set.
  const result = await mbpoll([
    '-a',
    '1',
    '-t',
    '3:float',
    '-B',
    '-r',
    '2',
    '-c',
    '18',
    '127.0.0.1',
    '-p',
    String(slave.port),
  ]);
  assert.equal(result.code, 0, result.stderr);
  const values = mbpollValues(result.stdout);
  const expected: Array<[number, number]> = [
    [2, 230.1],
    [4, 229.8],
    [6, 231.4],
    [8, 0],
    [14, 3.62],
    [16, -1.87],
    [18, 1.93],
    [26, 811],
    [28, -412],
    [30, 423],
    [32, 201],
    [34, 116],
    [36, -52],
  ];
  for (const [reference, value] of expected) {
    const got = values.get(reference);
    assert.ok(
      got !== undefined && Math.abs(got - value) <= Math.abs(value) * 1e-5,
      `[${reference}] ${got} != ${value}`,
    );
  }
  const tariff = await mbpoll([
    '-t',
    '3:int',
    '-B',
    '-r',
    '212',
    '-c',
    '1',
    '127.0.0.1',
    '-p',
    String(slave.port),
  ]);
  assert.equal(mbpollValues(tariff.stdout).get(212), 2);
});

test('mbpoll reads an lsw set in its default (little-endian) word order; FC 03 gets exception 01', async (t) => {
  if (!requireCommand(t, 'mbpoll')) return;
  const slave = await startSlave();
  t.after(() => slave.stop());
  const layout = [
    {
      start_address: 0,
      word_order: 'lsw',
      registers: [
        { id: '32.7.0', type: 'float', scaler: 0 },
        { id: 'current.l2', type: 'float', scaler: 0 },
        { id: 'power.active.l2', type: 'int', scaler: 3 },
        { id: '1.8.0', type: 'int', scaler: 2 },
      ],
    },
  ];
  assert.ok(slave.ctx.config.apply(new Map([['modbus.layout', layout]])).ok);
  slave.ctx.store.ingest(syntheticReading());
  const port = String(slave.port);
  const floats = mbpollValues(
    (await mbpoll(['-t', '3:float', '-r', '1', '-c', '2', '127.0.0.1', '-p', port])).stdout,
  );
  assert.ok(
    Math.abs(floats.get(1)! - 230.1) < 1e-3 && Math.abs(floats.get(3)! + 1.87) < 1e-5,
    JSON.stringify([...floats]),
  );
  const ints = mbpollValues(
    (await mbpoll(['-t', '3:int', '-r', '5', '-c', '2', '127.0.0.1', '-p', port])).stdout,
  );
  assert.deepEqual([ints.get(5), ints.get(7)], [-412, 3580247]);
  const holding = await mbpoll(['-t', '4', '-r', '1', '-c', '1', '127.0.0.1', '-p', port]);
  assert.match(holding.stderr, /Illegal function/);
});

test('exception codes seen by modbus-serial: 01 for FC 03, 03 for 126 registers, 02 past 9998', async (t) => {
  const slave = await startSlave();
  t.after(() => slave.stop());
  const client = await connectClient(slave.port, 0);
  t.after(() => closeClient(client));
  const codeOf = async (request: Promise<unknown>): Promise<number | undefined> => {
    try {
      await request;
      return undefined;
    } catch (error) {
      return (error as { modbusCode?: number }).modbusCode;
    }
  };
  assert.equal(await codeOf(client.readHoldingRegisters(1, 2)), 1);
  assert.equal(await codeOf(client.readCoils(0, 8)), 1);
  assert.equal(await codeOf(client.readInputRegisters(0, 126)), 3);
  assert.equal(await codeOf(client.readInputRegisters(9998, 2)), 2);
  assert.equal(await codeOf(client.readInputRegisters(30001, 1)), 2);
  assert.equal((await client.readInputRegisters(9998, 1)).data.length, 1);
  assert.equal(slave.service.slave.exceptions, 5);
});

test('stale readings turn instantaneous registers into NaN (float) and 0 (int), energy counters keep their last value; fresh data restores them', async (t) => {
  const slave = await startSlave({ staleAfterMs: 200 });
  t.after(() => slave.stop());
  const client = await connectClient(slave.port);
  t.after(() => closeClient(client));
  const keepAlive = setInterval(() => undefined, 1000); // the store's stale timer is unref'd
  t.after(() => clearInterval(keepAlive));
  slave.ctx.store.ingest(syntheticReading());
  assertClose(decodeRegister(await readWords(client, 1, 2), 0, 'float', 'msw'), 230.1, 'float', 'voltage');
  await once(slave.ctx.store, 'meter'); // status NO DATA after 200 ms without a frame
  assert.equal(slave.ctx.store.latest, undefined);
  assert.ok(Number.isNaN(decodeRegister(await readWords(client, 1, 2), 0, 'float', 'msw')));
  assert.ok(Number.isNaN(decodeRegister(await readWords(client, 501, 2), 0, 'float', 'msw')), '1.7.0');
  assertClose(
    decodeRegister(await readWords(client, 801, 4), 0, 'double', 'msw'),
    12345678,
    'double',
    '1.8.1',
  );
  assertClose(decodeRegister(await readWords(client, 549, 2), 0, 'float', 'msw'), 35802467, 'float', '1.8.0');
  assert.equal(decodeRegister(await readWords(client, 211, 2), 0, 'int', 'msw'), 0);
  slave.ctx.store.ingest(syntheticReading());
  assertClose(decodeRegister(await readWords(client, 1, 2), 0, 'float', 'msw'), 230.1, 'float', 'voltage');
});

test('mbpoll is served when silent connections fill the cap: the idlest one makes room', async (t) => {
  if (!requireCommand(t, 'mbpoll')) return;
  const slave = await startSlave();
  t.after(() => slave.stop());
  slave.ctx.store.ingest(syntheticReading());
  // 32 = DEFAULT_MAX_CONNECTIONS: sockets of clients that connect and never send a request.
  const silent: Socket[] = [];
  for (let i = 0; i < 32; i++) {
    const socket = connect(slave.port, '127.0.0.1');
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    silent.push(socket);
  }
  t.after(() => silent.forEach((socket) => socket.destroy()));
  const result = await mbpoll([
    '-a',
    '1',
    '-t',
    '3:float',
    '-B',
    '-r',
    '2',
    '-c',
    '3',
    '127.0.0.1',
    '-p',
    String(slave.port),
  ]);
  assert.equal(result.code, 0, result.stderr);
  const values = mbpollValues(result.stdout);
  for (const [reference, volts] of [
    [2, 230.1],
    [4, 229.8],
    [6, 231.4],
  ] as const)
    assert.ok(
      Math.abs(values.get(reference)! - volts) < 0.01,
      `reference ${reference}: ${values.get(reference)}`,
    );
  assert.equal(slave.service.slave.evicted, 1);
});
