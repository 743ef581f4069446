import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { REGISTER_COUNT } from '../../src/modbus/layout.js';
import { inputImageSpace } from '../../src/modbus/register-space.js';
import { ModbusSlave } from '../../src/modbus/slave.js';
import { adu, ProbeDuplex, readInput, settle } from './probe-duplex.js';

/** Registers with a distinct value at every address. */
function patternRegisters(): Buffer {
  const registers = Buffer.alloc(REGISTER_COUNT * 2);
  for (let a = 0; a < REGISTER_COUNT; a++) registers.writeUInt16BE((a * 7919 + 0x2a) & 0xffff, a * 2);
  return registers;
}

function expectedReply(
  registers: Buffer,
  tid: number,
  unit: number,
  start: number,
  quantity: number,
): Buffer {
  const header = Buffer.alloc(9);
  header.writeUInt16BE(tid, 0);
  header.writeUInt16BE(3 + quantity * 2, 4);
  header[6] = unit;
  header[7] = 0x04;
  header[8] = quantity * 2;
  return Buffer.concat([header, registers.subarray(start * 2, (start + quantity) * 2)]);
}

function exceptionReply(tid: number, unit: number, functionCode: number, code: number): Buffer {
  return Buffer.from([tid >> 8, tid & 0xff, 0, 0, 0, 3, unit, functionCode | 0x80, code]);
}

function connect(slave: ModbusSlave): ProbeDuplex {
  const probe = new ProbeDuplex();
  slave.handle(probe);
  return probe;
}

test('FC 04 answers the register bytes and echoes transaction and unit id (any unit)', async () => {
  const registers = patternRegisters();
  const slave = new ModbusSlave({ space: inputImageSpace(registers) });
  const probe = connect(slave);
  const requests: Array<[number, number, number, number]> = [
    [0x0001, 1, 0, 1],
    [0xbeef, 0, 1, 125],
    [0x7fff, 247, 9874, 125],
    [0xffff, 255, 9998, 1],
  ];
  for (const [tid, unit, start, quantity] of requests) probe.send(adu(tid, unit, readInput(start, quantity)));
  await settle();
  const expected = Buffer.concat(
    requests.map(([tid, unit, start, quantity]) => expectedReply(registers, tid, unit, start, quantity)),
  );
  assert.deepEqual(probe.written, expected);
  assert.equal(slave.requests, 4);
  assert.equal(slave.exceptions, 0);
  assert.equal(probe.destroyed, false);
});

test('a frame split at every byte, and pipelined frames in one chunk, are answered in order', async () => {
  const registers = patternRegisters();
  const slave = new ModbusSlave({ space: inputImageSpace(registers) });
  const probe = connect(slave);
  const frame = adu(7, 1, readInput(100, 10));
  for (const byte of frame) {
    probe.send(Buffer.from([byte]));
    await settle();
  }
  assert.deepEqual(probe.written, expectedReply(registers, 7, 1, 100, 10));

  const pipelined = Buffer.concat([
    adu(8, 1, readInput(0, 3)),
    adu(9, 2, readInput(3, 0)),
    adu(10, 3, readInput(5, 2)),
    adu(11, 4, readInput(50, 4)),
  ]);
  probe.send(pipelined.subarray(0, pipelined.length - 5));
  await settle();
  probe.send(pipelined.subarray(pipelined.length - 5));
  await settle();
  assert.deepEqual(
    probe.written,
    Buffer.concat([
      expectedReply(registers, 7, 1, 100, 10),
      expectedReply(registers, 8, 1, 0, 3),
      exceptionReply(9, 2, 0x04, 0x03),
      expectedReply(registers, 10, 3, 5, 2),
      expectedReply(registers, 11, 4, 50, 4),
    ]),
  );
});

test('exception codes: 01 other function codes, 03 quantity or PDU length, 02 address range', async () => {
  const slave = new ModbusSlave({ space: inputImageSpace(patternRegisters()) });
  const probe = connect(slave);
  const cases: Array<[number[], number, number]> = [
    [readInput(0, 1, 0x03), 0x03, 0x01], // read holding registers
    [readInput(0, 1, 0x10), 0x10, 0x01], // write multiple registers
    [[0x2b, 0x0e, 0x01, 0x00], 0x2b, 0x01], // read device identification
    [[0x84, 0, 0, 0, 1], 0x84, 0x01], // a function code with the exception bit set
    [readInput(0, 0), 0x04, 0x03],
    [readInput(0, 126), 0x04, 0x03],
    [readInput(0, 0xffff), 0x04, 0x03],
    [[0x04], 0x04, 0x03], // PDU without start and quantity
    [[...readInput(0, 1), 0x00], 0x04, 0x03], // one byte too many
    [readInput(9998, 2), 0x04, 0x02],
    [readInput(9875, 125), 0x04, 0x02],
    [readInput(9999, 1), 0x04, 0x02],
    [readInput(30000, 1), 0x04, 0x02], // a logical 3xxxx number is not a PDU address
    [readInput(0xffff, 125), 0x04, 0x02],
  ];
  cases.forEach(([pdu], i) => probe.send(adu(i, 9, pdu)));
  await settle();
  assert.deepEqual(
    probe.written,
    Buffer.concat(cases.map(([, functionCode, code], i) => exceptionReply(i, 9, functionCode, code))),
  );
  assert.equal(slave.exceptions, cases.length);
  assert.equal(slave.requests, cases.length);
  assert.equal(probe.destroyed, false);
});

test('an invalid MBAP header closes the connection after the replies before it', async () => {
  const headers: Array<[string, Buffer]> = [
    ['protocol id 1', adu(2, 1, readInput(0, 1), 1)],
    ['protocol id 0x0100', adu(2, 1, readInput(0, 1), 0x100)],
    ['length 1 (no function code)', adu(2, 1, [], 0, 1)],
    ['length 0', adu(2, 1, [], 0, 0)],
    ['length 255 (ADU over 260 bytes)', adu(2, 1, readInput(0, 1), 0, 255)],
  ];
  for (const [name, bad] of headers) {
    const registers = patternRegisters();
    const slave = new ModbusSlave({ space: inputImageSpace(registers) });
    const probe = connect(slave);
    const closed = once(probe, 'close');
    probe.send(Buffer.concat([adu(1, 1, readInput(0, 2)), bad, adu(3, 1, readInput(0, 2))]));
    await closed;
    assert.deepEqual(probe.written, expectedReply(registers, 1, 1, 0, 2), name);
    assert.equal(slave.protocolErrors, 1, name);
    assert.equal(slave.connections, 0, name);
  }
});

test('at the cap the connection idle longest is closed for a newcomer; busy ones are kept, the newcomer refused', async () => {
  let now = 10_000;
  const slave = new ModbusSlave({
    space: inputImageSpace(patternRegisters()),
    maxConnections: 2,
    now: () => now,
  });
  const silent = connect(slave);
  const polling = connect(slave);
  polling.send(adu(1, 1, readInput(0, 1)));
  await settle();
  // Both slots taken; the one that never sent a complete request goes.
  const newcomer = connect(slave);
  assert.equal(silent.destroyed, true);
  assert.equal(newcomer.destroyed, false);
  assert.equal(slave.evicted, 1);
  assert.equal(slave.connections, 2);
  newcomer.send(adu(2, 1, readInput(0, 1)));
  await settle();
  assert.equal(newcomer.written.length, 11);
  // Both served within the last second: a further client is refused, nobody is cut off.
  const refused = connect(slave);
  assert.equal(refused.destroyed, true);
  assert.equal(slave.refused, 1);
  assert.equal(polling.destroyed, false);
  // A second later the one served longest ago (polling, before the newcomer) makes room.
  now += 1500;
  const later = connect(slave);
  assert.equal(later.destroyed, false);
  assert.equal(polling.destroyed, true);
  assert.equal(newcomer.destroyed, false);
  assert.equal(slave.evicted, 2);
  slave.disconnectAll();
  await settle();
  assert.equal(slave.connections, 0);
});

test(
  'a connection that sends only part of a request is closed after the idle timeout',
  { timeout: 10_000 },
  async () => {
    const slave = new ModbusSlave({ space: inputImageSpace(patternRegisters()), idleTimeoutMs: 100 });
    const probe = connect(slave);
    const keepAlive = setInterval(() => undefined, 1000);
    const request = adu(1, 1, readInput(0, 1));
    // One byte every 30 ms: the 12-byte request would be complete after 360 ms, but bytes that do
    // not complete a request are no activity, so the 100 ms idle timeout closes it first.
    let sent = 0;
    const trickle = setInterval(() => {
      if (!probe.destroyed && sent < request.length) probe.send(request.subarray(sent, ++sent));
    }, 30);
    await once(probe, 'close');
    clearInterval(trickle);
    clearInterval(keepAlive);
    assert.equal(probe.written.length, 0);
    assert.ok(sent < request.length, `closed after ${sent} of ${request.length} bytes`);
    assert.equal(slave.connections, 0);
  },
);

test('an idle connection is closed after the idle timeout', { timeout: 10_000 }, async () => {
  const slave = new ModbusSlave({ space: inputImageSpace(patternRegisters()), idleTimeoutMs: 100 });
  const probe = connect(slave);
  probe.send(adu(1, 1, readInput(0, 1)));
  // The slave's idle timer does not hold the process open (unref); this test must.
  const keepAlive = setInterval(() => undefined, 1000);
  await once(probe, 'close');
  clearInterval(keepAlive);
  assert.equal(probe.written.length, 11);
  assert.equal(slave.connections, 0);
});
