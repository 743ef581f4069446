import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { REGISTER_COUNT } from '../../src/modbus/layout.js';
import { inputImageSpace } from '../../src/modbus/register-space.js';
import { ModbusSlave } from '../../src/modbus/slave.js';
import { adu, ProbeDuplex, readInput, settle } from './probe-duplex.js';

/**
 * Random ADU streams through ModbusSlave.handle(): the slave must never throw, every byte it
 * writes must be a well-formed reply, and its output must equal what a reference reading of the
 * Modbus specifications gives (Modbus Messaging on TCP/IP V1.0b §3.1.3 framing, Application Protocol §6.4 FC
 * 04).
 */

const RUNS = 9000;
const MIN_ADUS_PER_RUN = 20;
const MAX_ADUS_PER_RUN = 30;

interface Expectation {
  replies: Buffer;
  closed: boolean;
}

function exceptionFor(stream: Buffer, offset: number, functionCode: number, code: number): Buffer {
  return Buffer.from([
    stream[offset]!,
    stream[offset + 1]!,
    0,
    0,
    0,
    3,
    stream[offset + 6]!,
    (functionCode | 0x80) & 0xff,
    code,
  ]);
}

/** The reference: what a slave that follows the Modbus specifications answers to this byte stream. */
function reference(stream: Buffer, registers: Buffer): Expectation {
  const replies: Buffer[] = [];
  let offset = 0;
  while (stream.length - offset >= 7) {
    const protocol = stream.readUInt16BE(offset + 2);
    const length = stream.readUInt16BE(offset + 4);
    if (protocol !== 0 || length < 2 || length > 254)
      return { replies: Buffer.concat(replies), closed: true };
    if (stream.length - offset < 6 + length) break;
    const functionCode = stream[offset + 7]!;
    const start = length === 6 ? stream.readUInt16BE(offset + 8) : 0;
    const quantity = length === 6 ? stream.readUInt16BE(offset + 10) : 0;
    if (functionCode !== 4) replies.push(exceptionFor(stream, offset, functionCode, 1));
    else if (length !== 6 || quantity < 1 || quantity > 125)
      replies.push(exceptionFor(stream, offset, functionCode, 3));
    else if (start + quantity > REGISTER_COUNT) replies.push(exceptionFor(stream, offset, functionCode, 2));
    else {
      const header = Buffer.from([
        stream[offset]!,
        stream[offset + 1]!,
        0,
        0,
        0,
        3 + quantity * 2,
        stream[offset + 6]!,
        4,
        quantity * 2,
      ]);
      replies.push(header, registers.subarray(start * 2, (start + quantity) * 2));
    }
    offset += 6 + length;
  }
  return { replies: Buffer.concat(replies), closed: false };
}

/** Structural check, independent of the reference: MBAP frames with FC 04 data or an exception 1..3. */
function assertWellFormed(written: Buffer): number {
  let offset = 0;
  let frames = 0;
  while (offset < written.length) {
    assert.ok(written.length - offset >= 9, 'truncated reply');
    assert.equal(written.readUInt16BE(offset + 2), 0, 'protocol id');
    const length = written.readUInt16BE(offset + 4);
    const functionCode = written[offset + 7]!;
    if (functionCode & 0x80) {
      assert.equal(length, 3);
      assert.ok([1, 2, 3].includes(written[offset + 8]!), 'exception code');
    } else {
      assert.equal(functionCode, 4);
      assert.equal(written[offset + 8], length - 3, 'byte count');
      assert.ok(length - 3 >= 2 && length - 3 <= 250 && (length - 3) % 2 === 0, 'data length');
    }
    offset += 6 + length;
    frames += 1;
  }
  assert.equal(offset, written.length);
  return frames;
}

const u16 = fc.integer({ min: 0, max: 0xffff });
const u8 = fc.integer({ min: 0, max: 0xff });

const validRead = fc
  .tuple(
    u16,
    u8,
    fc.oneof(fc.integer({ min: 0, max: 9998 }), fc.integer({ min: 9870, max: 10010 }), u16),
    fc.oneof(fc.integer({ min: 1, max: 125 }), fc.integer({ min: 0, max: 130 }), u16),
  )
  .map(([tid, unit, start, quantity]) => adu(tid, unit, readInput(start, quantity)));
const otherFunction = fc
  .tuple(u16, u8, u8, fc.array(u8, { maxLength: 12 }))
  .map(([tid, unit, code, data]) => adu(tid, unit, [code, ...data]));
const oddLengthRead = fc
  .tuple(u16, u8, fc.array(u8, { maxLength: 10 }))
  .map(([tid, unit, data]) => adu(tid, unit, [0x04, ...data]));
const lengthMismatch = fc
  .tuple(u16, u8, fc.integer({ min: 2, max: 254 }), fc.array(u8, { maxLength: 16 }))
  .map(([tid, unit, length, data]) => adu(tid, unit, [0x04, ...data], 0, length));
const badHeader = fc
  .tuple(
    u16,
    fc.integer({ min: 0, max: 0xffff }),
    fc.oneof(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 255, max: 0xffff })),
    u8,
  )
  .map(([tid, protocol, length, unit]) =>
    adu(tid, unit, readInput(0, 1), protocol, protocol === 0 ? length : 6),
  );
const garbage = fc.uint8Array({ minLength: 1, maxLength: 24 }).map((bytes) => Buffer.from(bytes));

const anyAdu = fc.oneof(
  { arbitrary: validRead, weight: 40 },
  { arbitrary: otherFunction, weight: 8 },
  { arbitrary: oddLengthRead, weight: 5 },
  { arbitrary: lengthMismatch, weight: 2 },
  { arbitrary: badHeader, weight: 1 },
  { arbitrary: garbage, weight: 1 },
);

/** Cuts the stream into chunks of the given sizes (cycled), as TCP segments might. */
function split(stream: Buffer, sizes: number[]): Buffer[] {
  const chunks: Buffer[] = [];
  for (let offset = 0, i = 0; offset < stream.length; i++) {
    const size = sizes[i % sizes.length]!;
    chunks.push(stream.subarray(offset, offset + size));
    offset += size;
  }
  return chunks;
}

test(
  'fuzz: >= 100,000 random ADUs through handle(): no crash, well-formed replies equal to the reference, or closed',
  { timeout: 120_000 },
  async () => {
    const registers = Buffer.alloc(REGISTER_COUNT * 2);
    for (let a = 0; a < REGISTER_COUNT; a++) registers.writeUInt16BE((a * 40503) & 0xffff, a * 2);
    const slave = new ModbusSlave({ space: inputImageSpace(registers), maxConnections: 1 });
    let adus = 0;
    let replies = 0;
    let closedConnections = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(anyAdu, { minLength: MIN_ADUS_PER_RUN, maxLength: MAX_ADUS_PER_RUN }),
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 8 }),
        async (frames, sizes) => {
          adus += frames.length;
          const stream = Buffer.concat(frames);
          const probe = new ProbeDuplex();
          slave.handle(probe);
          probe.send(...split(stream, sizes));
          await settle();
          const expected = reference(stream, registers);
          replies += assertWellFormed(probe.written);
          assert.deepEqual(probe.written, expected.replies);
          assert.equal(probe.destroyed, expected.closed);
          if (expected.closed) closedConnections += 1;
          probe.destroy();
          await settle();
        },
      ),
      { numRuns: RUNS },
    );
    console.log(
      `# fuzz: ${adus} ADUs, ${replies} replies, ${closedConnections} connections closed for bad headers`,
    );
    assert.ok(adus >= 100_000, `only ${adus} ADUs`);
    assert.ok(replies > adus / 4, 'most ADUs must reach the request handler');
    assert.equal(slave.connections, 0);
  },
);
