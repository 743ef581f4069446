import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DsmrFramer, type FramerEvent } from '../../../src/meter/dsmr/framer.js';
import { requireCorpus } from '../../helpers/environment.js';
import { corpusFile } from './corpus-cases.js';

/** Frames as latin1 text, errors as "error:<kind>". */
function describe(events: FramerEvent[]): string[] {
  return events.map((e) => ('frame' in e ? e.frame.toString('latin1') : `error:${e.error.kind}`));
}

function frameAll(chunks: readonly Buffer[], framer = new DsmrFramer()): string[] {
  const events = chunks.flatMap((chunk) => framer.push(chunk));
  return describe([...events, ...framer.flush()]);
}

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const V2 = '/ISk5\\2MT382-1000\r\n\r\n1-0:1.8.1(00001.001*kWh)\r\n!\r\n';
const V5 = '/ISk5\\2MT382-1000\r\n\r\n1-0:1.8.1(00001.001*kWh)\r\n!1234\r\n';

test('complete telegrams end at the LF after the CRC; bytes before "/" are skipped', () => {
  assert.deepEqual(frameAll([latin1(`noise\r\n${V5}junk${V2}`)]), [V5, V2]);
  assert.deepEqual(frameAll([latin1('no telegram here at all\r\n')]), []);
  const framer = new DsmrFramer();
  assert.deepEqual(describe(framer.push(latin1(V5))), [V5], 'completes without waiting for more input');
});

test('a telegram without line end after 4 CRC digits completes at the next byte or at flush', () => {
  const bare = V5.slice(0, -2);
  const framer = new DsmrFramer();
  assert.deepEqual(describe(framer.push(latin1(bare))), []);
  assert.deepEqual(describe(framer.push(latin1(V5))), [bare, V5]);
  assert.deepEqual(frameAll([latin1(bare)]), [bare]);
  assert.deepEqual(frameAll([latin1(`${bare}garbage`)]), [bare]);
});

test('a "/" before the "!" restarts the telegram and reports the dropped part', () => {
  assert.deepEqual(frameAll([latin1(`/ISk5 cut off\r\n1-0:1.8${V5}`)]), ['error:parse', V5]);
});

test('a CR after the CRC that is not followed by LF drops the telegram', () => {
  assert.deepEqual(frameAll([latin1(`${V5.slice(0, -1)}${V5}`)]), ['error:parse', V5]);
});

test('a malformed CRC field is a checksum failure; a short field is cut at the first non-hex byte', () => {
  assert.deepEqual(frameAll([latin1('/ABC5 x\r\n!garbage')]), ['error:crc']);
  assert.deepEqual(frameAll([latin1('/ABC5 x\r\n!a3G4')]), ['/ABC5 x\r\n!a3']);
  assert.deepEqual(frameAll([latin1('/ABC5 x\r\n!')]), ['/ABC5 x\r\n!'], 'DSMR < 4 end at end of input');
});

test('input ending inside a telegram is reported by flush', () => {
  assert.deepEqual(frameAll([latin1('/ABC5 x\r\n1-0:1.8.1(1')]), ['error:parse']);
});

test('every split point of a stream gives the same frames', (t) => {
  if (!requireCorpus(t)) return;
  for (const name of [
    'ndokter_v5.txt',
    'amshan_sweden_landisgyr_e360_a.txt',
    'edge/ndokter_stream_v22_v42_v22.txt',
  ]) {
    const bytes = corpusFile(name);
    const whole = frameAll([bytes]);
    assert.ok(whole.length > 0);
    for (let split = 1; split < bytes.length; split++) {
      assert.deepEqual(
        frameAll([bytes.subarray(0, split), bytes.subarray(split)]),
        whole,
        `${name} split at ${split}`,
      );
    }
    const bytewise = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    assert.deepEqual(frameAll(bytewise), whole, `${name} byte by byte`);
  }
});

test('garbage between telegrams, including "!" and hex, never leaks into frames', () => {
  const noise = '!ABCD\r\n!!12\r\n';
  assert.deepEqual(frameAll([latin1(`${noise}${V5}${noise}${V5}${noise}`)]), [V5, V5]);
});

test('a 10 MB stream without telegram end keeps the buffer bounded and reports overflow once', () => {
  const framer = new DsmrFramer(16 * 1024);
  const chunk = Buffer.alloc(64 * 1024, 'x');
  chunk[0] = 0x2f; // one '/' at the start of the stream, then never a '!' or another '/'
  const events: FramerEvent[] = [];
  let largest = 0;
  for (let sent = 0; sent < 10 * 1024 * 1024; sent += chunk.length) {
    events.push(...framer.push(sent === 0 ? chunk : chunk.fill('x', 0, 1)));
    largest = Math.max(largest, framer.bufferedBytes);
  }
  assert.ok(largest <= 16 * 1024, `buffered ${largest} bytes`);
  assert.deepEqual(describe(events), ['error:overflow']);
  assert.deepEqual(describe(framer.push(latin1(V5))), [V5], 'recovers at the next telegram');
});

test('many starts without end: each restart is bounded too', () => {
  const framer = new DsmrFramer(1024);
  let largest = 0;
  const events: FramerEvent[] = [];
  for (let n = 0; n < 2000; n++) {
    events.push(...framer.push(latin1(`/ABC5 ${'y'.repeat(n % 3000)}`)));
    largest = Math.max(largest, framer.bufferedBytes);
  }
  assert.ok(largest <= 1024, `buffered ${largest} bytes`);
  assert.ok(events.every((e) => 'error' in e));
  assert.ok(events.some((e) => 'error' in e && e.error.kind === 'overflow'));
});

test('reset drops a partial telegram', () => {
  const framer = new DsmrFramer();
  framer.push(latin1(V5.slice(0, 20)));
  assert.ok(framer.bufferedBytes > 0);
  framer.reset();
  assert.equal(framer.bufferedBytes, 0);
  assert.deepEqual(describe(framer.push(latin1(V5.slice(20)))), []);
});
