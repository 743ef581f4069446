import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ILLEGAL_FUNCTION, type RegisterSpace } from '../../src/modbus/pdu.js';
import { interFrameMs, sealFrame } from '../../src/modbus-protocol/rtu-frame.js';
import { RtuSlave } from '../../src/modbus/rtu-slave.js';

/**
 * RTU framing byte by byte, on a mocked clock: a request split at every boundary, the event loop
 * held up between two reads, and the limits of keeping an incomplete request. The pty test in
 * rtu.test.ts shows the same over a real serial line, where the timing cannot be chosen.
 */

const UNIT = 3;
/** Input registers 0..9 hold 0x0100 + address. */
const SPACE: RegisterSpace = {
  has: (table) => table === 'input',
  read(table, start, quantity) {
    if (table !== 'input') return ILLEGAL_FUNCTION;
    const words = Buffer.alloc(quantity * 2);
    for (let k = 0; k < quantity; k++) words.writeUInt16BE(0x0100 + start + k, 2 * k);
    return words;
  },
  copyTo(table, start, quantity, target, at) {
    const words = this.read(table, start, quantity);
    if (typeof words === 'number') return words;
    words.copy(target, at);
    return 0;
  },
};

function request(unit: number, start: number, quantity: number): Buffer {
  const frame = Buffer.alloc(8);
  frame[0] = unit;
  frame[1] = 4;
  frame.writeUInt16BE(start, 2);
  frame.writeUInt16BE(quantity, 4);
  return sealFrame(frame);
}

/** FC 04 reply of UNIT for two registers from 2: 0x0102, 0x0103. */
const REPLY = sealFrame(Buffer.from([UNIT, 4, 4, 0x01, 0x02, 0x01, 0x03, 0, 0]));

/** A 9600 8N1 slave on mocked timers and Date; `sent` collects its replies. */
function slaveOnMockedClock(t: TestContext): { slave: RtuSlave; sent: Buffer[] } {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const sent: Buffer[] = [];
  const slave = new RtuSlave({
    unitId: UNIT,
    space: SPACE,
    silenceMs: interFrameMs(9600, 'none', 1),
    send: (frame) => sent.push(frame),
    now: () => Date.now(),
  });
  t.after(() => slave.reset());
  return { slave, sent };
}

/** Time passing with the event loop free: every timer fires when due. */
function idle(t: TestContext, ms: number): void {
  for (let k = 0; k < ms; k++) t.mock.timers.tick(1);
}

/** The event loop busy for `ms`: due timers fire late, all at its end, before any input is read. */
function heldUp(t: TestContext, ms: number): void {
  t.mock.timers.tick(ms);
}

test('a request split at every byte boundary is answered once, byte-exact', (t) => {
  const { slave, sent } = slaveOnMockedClock(t);
  const frame = request(UNIT, 2, 2);
  for (let cut = 1; cut < frame.length; cut++) {
    slave.receive(frame.subarray(0, cut));
    idle(t, 20);
    slave.receive(frame.subarray(cut));
    idle(t, 20);
  }
  assert.deepEqual(
    sent,
    Array.from({ length: frame.length - 1 }, () => REPLY),
  );
  assert.equal(slave.requests, frame.length - 1);
  assert.equal(slave.badFrames, 0);
});

test('a held-up event loop between two reads of one request does not cut it', (t) => {
  const { slave, sent } = slaveOnMockedClock(t);
  const frame = request(UNIT, 2, 2);
  slave.receive(frame.subarray(0, 3));
  heldUp(t, 150);
  slave.receive(frame.subarray(3));
  idle(t, 5); // the turnaround: a reply leaves t3.5 after the request's last byte
  assert.deepEqual(sent, [REPLY]);
  assert.equal(slave.badFrames, 0);
});

test('a frame of another unit read in two parts around a held-up loop counts as one frame', (t) => {
  const { slave, sent } = slaveOnMockedClock(t);
  const frame = request(UNIT + 1, 2, 2);
  slave.receive(frame.subarray(0, 5));
  heldUp(t, 150);
  slave.receive(frame.subarray(5));
  idle(t, 20);
  assert.equal(slave.otherUnit, 1);
  assert.equal(slave.badFrames, 0);
  assert.deepEqual(sent, []);
});

test('an incomplete request is dropped after 100 ms of line silence, and the next one is answered', (t) => {
  const { slave, sent } = slaveOnMockedClock(t);
  const frame = request(UNIT, 2, 2);
  slave.receive(frame.subarray(0, 3));
  idle(t, 120);
  slave.receive(frame.subarray(3));
  idle(t, 20);
  assert.deepEqual(sent, []);
  assert.equal(slave.badFrames, 2);
  slave.receive(frame);
  idle(t, 5); // the turnaround: a reply leaves t3.5 after the request's last byte
  assert.deepEqual(sent, [REPLY]);
});
