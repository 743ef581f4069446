import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MeterDataError } from '../../../src/meter/decoder.js';
import { crc16Kermit } from '../../../src/checksum/crc16.js';
import { formatObis, obisNumber, parseSmlFrame } from '../../../src/meter/sml/parser.js';
import { unwrapTransportFrame } from '../../../src/meter/sml/transport.js';
import {
  closeResponse,
  getListResponse,
  list,
  message,
  octets,
  openResponse,
  transportFrame,
  u,
  withFixedFrameCrc,
} from './sml-builder.js';

const SERVER_ID = Buffer.from('0a0149534b00047a5544', 'hex');

function isError(kind: string, pattern: RegExp): (error: unknown) => boolean {
  return (error) => error instanceof MeterDataError && error.kind === kind && pattern.test(error.message);
}

const messages = (): Buffer =>
  Buffer.concat([
    openResponse(SERVER_ID),
    getListResponse(SERVER_ID, [{ obis: [1, 0, 1, 8, 0, 255], unit: 30, scaler: -1, value: u(1234, 4) }]),
    closeResponse(),
  ]);

test('messages: Open, GetList with its entry fields, Close', () => {
  const frame = parseSmlFrame(transportFrame(messages()));
  assert.deepEqual(
    frame.messages.map((m) => m.type),
    ['OpenResponse', 'GetListResponse', 'CloseResponse'],
  );
  const [open, list] = frame.messages;
  assert.ok(open?.type === 'OpenResponse' && list?.type === 'GetListResponse');
  assert.deepEqual(open.serverId, SERVER_ID);
  assert.deepEqual(open.transactionId, Buffer.from('t1'));
  assert.equal(open.clientId, undefined);
  const [entry] = list.entries;
  assert.ok(entry);
  assert.equal(formatObis(entry.objName), '1-0:1.8.0*255');
  assert.equal(entry.obisCode, obisNumber(1, 0, 1, 8, 0, 255));
  assert.deepEqual([entry.unit, entry.scaler, entry.value, entry.status], [30, -1, 1234, undefined]);
  assert.ok(frame.messages.every((m) => m.crcOk === true));
});

test('message CRC: recorded, enforced with "require", not computed with "skip"', () => {
  const bare = messages();
  bare[bare.indexOf(Buffer.from('t2')) + 1] = 0x33; // transactionId t2 -> t3, message CRC now stale
  const recorded = parseSmlFrame(bare);
  assert.deepEqual(
    recorded.messages.map((m) => m.crcOk),
    [true, false, true],
  );
  assert.throws(() => parseSmlFrame(bare, { messageCrc: 'require' }), isError('crc', /message CRC mismatch/));
  assert.ok(parseSmlFrame(bare, { messageCrc: 'skip' }).messages.every((m) => m.crcOk === undefined));
  // Inside a transport frame whose own CRC matches, the stale message CRC does not reject it.
  assert.equal(parseSmlFrame(transportFrame(bare)).messages.length, 3);
});

test('Kermit variant: frame CRC high byte first, message CRCs Kermit too', () => {
  const body = Buffer.from([0x76, ...encodeHeader(), 0x72, 0x63, 0x02, 0x01, 0x71, 0x01]);
  const checksum = crc16Kermit(body);
  const close = Buffer.concat([body, Buffer.from([0x63, checksum >> 8, checksum & 0xff, 0x00])]);
  // 18 message bytes, 2 padding bytes to the 4-byte block.
  const frame = Buffer.concat([
    Buffer.from('1b1b1b1b01010101', 'hex'),
    close,
    Buffer.from('00001b1b1b1b1a02', 'hex'),
  ]);
  const frameCrc = crc16Kermit(frame);
  const kermit = Buffer.concat([frame, Buffer.from([frameCrc >> 8, frameCrc & 0xff])]);
  assert.throws(() => parseSmlFrame(kermit), isError('crc', /frame CRC mismatch \(x25\)/));
  const parsed = parseSmlFrame(kermit, { crc: 'kermit' });
  assert.deepEqual(
    parsed.messages.map((m) => [m.type, m.crcOk]),
    [['CloseResponse', true]],
  );
});

function encodeHeader(): number[] {
  return [0x03, 0x74, 0x33, 0x62, 0x00, 0x62, 0x00]; // transactionId "t3", groupNo 0, abortOnError 0
}

test('attention responses are read, unknown messages skipped by tag', () => {
  const attention = message(
    'a1',
    0xff01,
    list(octets(SERVER_ID), octets(Buffer.from('8181c7c7fe03', 'hex')), octets('busy'), null),
  );
  const profile = message('p1', 0x0401, list(octets('x'), list(u(1, 1), list(u(2, 2))), null));
  const parsed = parseSmlFrame(Buffer.concat([attention, profile, closeResponse()]));
  const [first, second] = parsed.messages;
  assert.ok(first?.type === 'AttentionResponse' && second?.type === 'Other');
  assert.deepEqual(first.attentionNo, Buffer.from('8181c7c7fe03', 'hex'));
  assert.equal(first.message, 'busy');
  assert.equal(second.tag, 0x0401);
});

test('transport framing errors are typed: CRC, end escape, padding', () => {
  const frame = transportFrame(messages());
  const corrupted = Buffer.from(frame);
  corrupted[20] = corrupted[20]! ^ 0xff;
  assert.throws(() => parseSmlFrame(corrupted), isError('crc', /frame CRC mismatch/));
  const noEnd = Buffer.from(frame);
  noEnd[noEnd.length - 4] = 0x1c;
  assert.throws(() => unwrapTransportFrame(noEnd), isError('parse', /does not end with 1b1b1b1b 1a/));
  const padded = Buffer.from(frame);
  padded[padded.length - 3] = 0xff;
  assert.throws(
    () => parseSmlFrame(withFixedFrameCrc(padded)),
    isError('parse', /invalid padding count 255/),
  );
  assert.throws(
    () => parseSmlFrame(Buffer.from('720101', 'hex')),
    isError('parse', /SML_Message is not a list of 6/),
  );
  assert.throws(() => parseSmlFrame(Buffer.alloc(0)), isError('parse', /no SML message/));
});

test('SML_Time: list forms and the bare second index some meters send', () => {
  for (const [time, expected] of [
    [list(u(1, 1), u(99043543, 4)), { kind: 'secIndex', seconds: 99043543 }],
    [u(99043543, 4), { kind: 'secIndex', seconds: 99043543 }],
    [list(u(2, 1), u(1_700_000_000, 4)), { kind: 'timestamp', seconds: 1_700_000_000 }],
  ] as const) {
    const parsed = parseSmlFrame(getListResponse(SERVER_ID, [], time));
    const [listResponse] = parsed.messages;
    assert.ok(listResponse?.type === 'GetListResponse');
    assert.deepEqual(listResponse.actSensorTime, expected);
  }
  assert.throws(
    () => parseSmlFrame(getListResponse(SERVER_ID, [], list(u(9, 1), u(1, 1)))),
    isError('parse', /unknown SML_Time choice 9/),
  );
});
