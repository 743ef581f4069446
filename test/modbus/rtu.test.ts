import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { crc16Modbus as modbusCrc } from '../../src/checksum/crc16.js';
import { BlockSpace } from '../../src/modbus/register-space.js';
import { METER_PROFILES } from '../../src/modbus-protocol/profiles/catalogue.js';
import { characterMs, interFrameMs, sealFrame } from '../../src/modbus-protocol/rtu-frame.js';
import { RtuSlave } from '../../src/modbus/rtu-slave.js';
import { requireCommand, requirePeer } from '../helpers/environment.js';
import { quietPeriod, waitFor } from '../helpers/wait.js';
import { mbpollValues } from './clients.js';
import {
  UNIT,
  hasPymodbus,
  mbpollRtu,
  openBus,
  pymodbus,
  request,
  startRig,
  waitForBytes,
  waitForCounter,
} from './rtu-rig.js';

/**
 * The RTU slave over a socat pseudo-terminal pair, as an inverter on an RS485 bus sees it: mbpoll
 * in RTU mode and pymodbus's serial client read the profiles' registers; raw frames check the
 * CRC, the unit-id filter and byte-exact replies.
 */

test('Modbus CRC-16 and frame timing of the serial line spec', () => {
  // Modbus over Serial Line V1.02 Appendix B: the frame 01 03 00 00 00 01 carries CRC 0x0A84 (84 0A on the wire).
  assert.equal(modbusCrc(Buffer.from([0x01, 0x03, 0x00, 0x00, 0x00, 0x01])), 0x0a84);
  assert.deepEqual(request(1, 3, 0, 1), Buffer.from([0x01, 0x03, 0x00, 0x00, 0x00, 0x01, 0x84, 0x0a]));
  // 9600 8N1: 10 bits per character, 1.042 ms; t3.5 = 3.65 ms. 8E1: 11 bits. Above 19200: 1.75 ms.
  assert.equal(characterMs(9600, 'none', 1).toFixed(3), '1.042');
  assert.equal(interFrameMs(9600, 'none', 1).toFixed(2), '3.65');
  assert.equal(interFrameMs(9600, 'even', 1).toFixed(2), '4.01');
  assert.equal(interFrameMs(38400, 'none', 1), 1.75);
});

test('turnaround: the reply leaves no earlier than t3.5 after the last request byte', async () => {
  // A slow line (t3.5 = 40 ms) makes the wait visible; the bound is the protocol's, not a benchmark.
  const silenceMs = 40;
  const sent: Array<{ frame: Buffer; at: number }> = [];
  const slave = new RtuSlave({
    unitId: UNIT,
    space: new BlockSpace(METER_PROFILES.sdm630),
    silenceMs,
    send: (frame) => sent.push({ frame, at: performance.now() }),
  });
  const frame = request(UNIT, 4, 0x0034, 2);
  slave.receive(frame.subarray(0, 5));
  await sleep(10);
  const lastByteAt = performance.now();
  slave.receive(frame.subarray(5));
  assert.equal(sent.length, 0, 'not answered while the request may still be on the line');
  for (let waited = 0; sent.length === 0 && waited < 2000; waited += 5) await sleep(5);
  assert.equal(sent.length, 1);
  assert.ok(
    sent[0]!.at - lastByteAt >= silenceMs,
    `answered ${sent[0]!.at - lastByteAt} ms after the last byte`,
  );
  assert.equal(sent[0]!.frame[1], 4);
  slave.reset();
});

test('raw frames: byte-exact reply, wrong CRC and other unit ids unanswered, exceptions', async (t) => {
  if (!requireCommand(t, 'socat')) return;
  const rig = await startRig(t, { METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: 'sdm630' });
  const bus = await openBus(rig.pty.meterPath);
  t.after(() => new Promise<void>((resolve) => bus.port.close(() => resolve())));

  // FC 04, 30053 total power: 822 W as a float, high word first.
  bus.port.write(request(UNIT, 4, 0x0034, 2));
  const reply = await waitForBytes(bus.heard, 9);
  const expected = Buffer.alloc(9);
  expected[0] = UNIT;
  expected[1] = 4;
  expected[2] = 4;
  expected.writeFloatBE(822, 3);
  assert.deepEqual(reply, sealFrame(expected));
  bus.clear();

  // A corrupted CRC, another unit id and a broadcast: no answer on the bus. Each frame is sent
  // once the slave has judged the one before: written back to back they are one frame on the line.
  const corrupted = request(UNIT, 4, 0x0034, 2);
  corrupted[7] = corrupted[7]! ^ 0xff;
  // 60 ms of silence between them (far more than t3.5) keeps them three frames.
  bus.port.write(corrupted);
  await waitForCounter(rig.service, 'badFrames', 1);
  bus.port.write(request(UNIT + 1, 4, 0x0034, 2));
  await waitForCounter(rig.service, 'otherUnit', 1);
  bus.port.write(request(0, 4, 0x0034, 2));
  await waitFor(
    'the three frames to be taken in',
    () => rig.service.counters,
    (counters) => counters.badFrames + counters.otherUnit >= 3,
  );
  await quietPeriod(100); // proves an absence: no reply follows any of them
  assert.equal(bus.heard().length, 0);
  assert.equal(rig.service.counters.badFrames, 1);
  assert.equal(rig.service.counters.otherUnit, 2);

  // A request split in two bursts (as a USB adapter delivers it) is still answered.
  const split = request(UNIT, 3, 0x0014, 2);
  bus.port.write(split.subarray(0, 3));
  await sleep(20); // the gap between the two bursts, shorter than the frame timeout
  bus.port.write(split.subarray(3));
  const node = await waitForBytes(bus.heard, 9);
  assert.equal(node.readFloatBE(3), UNIT);
  bus.clear();

  // Exceptions as on TCP: 02 outside the map, 01 for an unsupported function code.
  bus.port.write(request(UNIT, 4, 0x2000, 2));
  assert.deepEqual(await waitForBytes(bus.heard, 5), sealFrame(Buffer.from([UNIT, 0x84, 0x02, 0, 0])));
  bus.clear();
  bus.port.write(request(UNIT, 6, 0x0014, 1));
  assert.deepEqual(await waitForBytes(bus.heard, 5), sealFrame(Buffer.from([UNIT, 0x86, 0x01, 0, 0])));
});

/** Every profile, read by mbpoll in RTU mode: [profile, table, 1-based reference, expected floats]. */
const MBPOLL_CASES: Array<[string, '3' | '4', number, number[]]> = [
  ['sdm630', '3', 1, [230.1, 229.8, 231.4, 3.62, 1.87, 1.93, 811, -412, 423]],
  ['sdm630', '3', 53, [822]],
  ['sdm630', '3', 73, [35802.467, 3580.245]],
  ['sdm120', '3', 1, [230.1]],
  ['sdm120', '3', 13, [822]],
  ['sdm72', '3', 53, [822]],
  ['sdm72', '3', 397, [35802.467 - 3580.245]],
  ['sdm72', '3', 1281, [822, 0]],
  ['dtsu666', '4', 0x2006 + 1, [2301, 2298, 2314, 3620, 1870, 1930, 8220, 8110, -4120, 4230]],
  ['dtsu666', '4', 0x101e + 1, [35802.467]],
  ['dtsu666', '4', 0x1028 + 1, [3580.245]],
];

test('mbpoll in RTU mode reads every profile: floats, W not kW, signs, word order', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCommand(t, 'mbpoll')) return;
  for (const profile of ['sdm630', 'sdm120', 'sdm72', 'dtsu666']) {
    await t.test(profile, async (t) => {
      const rig = await startRig(t, { METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: profile });
      for (const [name, table, reference, values] of MBPOLL_CASES) {
        if (name !== profile) continue;
        const result = await mbpollRtu(rig.pty.meterPath, [
          '-t',
          `${table}:float`,
          '-B',
          '-r',
          String(reference),
          '-c',
          String(values.length),
        ]);
        assert.equal(result.code, 0, result.stderr + result.stdout);
        const read = mbpollValues(result.stdout);
        values.forEach((value, k) => {
          const got = read.get(reference + 2 * k);
          assert.ok(got !== undefined, `${profile} ${reference + 2 * k} missing in ${result.stdout}`);
          // mbpoll prints 6 significant digits.
          assert.ok(
            Math.abs(got - value) <= Math.abs(value) * 1e-5,
            `${profile} ${reference + 2 * k}: ${got} != ${value}`,
          );
        });
      }
    });
  }
});

/** 16-bit registers as mbpoll prints them ("[40070]: \t203 (0x00CB)", unsigned), read as int16. */
function registers(stdout: string): number[] {
  return [...stdout.matchAll(/^\[(\d+)\]:\s+(\d+)/gm)].map((match) => (Number(match[2]) << 16) >> 16);
}

test('mbpoll in RTU mode walks the SunSpec map (16-bit holding registers with scale factors)', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCommand(t, 'mbpoll')) return;
  const rig = await startRig(t, { METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: 'sunspec' });
  // -0: PDU addresses. 40070: model id 203 and length 105; 40088..40092: W, WphA..C, W_SF.
  const header = await mbpollRtu(rig.pty.meterPath, ['-0', '-t', '4', '-r', '40070', '-c', '2']);
  assert.equal(header.code, 0, header.stderr);
  assert.deepEqual(registers(header.stdout), [203, 105]);
  const power = await mbpollRtu(rig.pty.meterPath, ['-0', '-t', '4', '-r', '40088', '-c', '5']);
  assert.equal(power.code, 0, power.stderr);
  assert.deepEqual(registers(power.stdout), [822, 811, -412, 423, 0]);
});

test("pymodbus's serial client reads every profile and gets the exception for a gap", async (t) => {
  if (
    !requireCommand(t, 'socat') ||
    !requirePeer(t, await hasPymodbus(), 'python3 with pymodbus (python3-pymodbus)')
  )
    return;
  const sdm = await startRig(t, { METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: 'sdm630' });
  const floats = (await pymodbus(sdm.pty.meterPath, 'input', 0x000c, 6)).split(' ').map(Number);
  assert.deepEqual(floats, [811, -412, 423]);
  assert.match(await pymodbus(sdm.pty.meterPath, 'input', 0x2000, 2), /^exception 2/);
  const energy = Number(await pymodbus(sdm.pty.meterPath, 'input', 0x0048, 2));
  assert.equal(energy, Math.fround(35802.467));

  // The other profiles, switched live on the same port.
  const f = Math.fround;
  const cases: Array<[string, 'input' | 'holding', number, number, 'float' | 'int16', number[]]> = [
    ['sdm120', 'input', 0x000c, 2, 'float', [822]],
    ['sdm72', 'input', 0x0500, 4, 'float', [822, 0]],
    ['sdm72', 'input', 0x018c, 2, 'float', [f(35802.467 - 3580.245)]],
    ['dtsu666', 'holding', 0x2012, 8, 'float', [8220, 8110, -4120, 4230]],
    ['sunspec', 'holding', 40088, 5, 'int16', [822, 811, -412, 423, 0]],
  ];
  for (const [profile, table, address, count, kind, expected] of cases) {
    assert.ok(sdm.ctx.config.apply(new Map([['services.modbus_rtu.profile', profile]])).ok);
    const read = (await pymodbus(sdm.pty.meterPath, table, address, count, kind)).split(' ').map(Number);
    assert.deepEqual(read, expected, profile);
  }
});

test('the port vanishing and coming back: the slave reopens it with backoff', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCommand(t, 'mbpoll')) return;
  const rig = await startRig(t, { METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: 'sdm630' });
  await rig.pty.stop();
  const state = () => rig.ctx.services.get('modbus_rtu')?.state;
  await waitFor('the closed port to be reported', state, (seen) => seen === 'retrying');
  await rig.pty.start();
  await waitFor('the port to be reopened', state, (seen) => seen === 'running');
  const result = await mbpollRtu(rig.pty.meterPath, ['-t', '3:float', '-B', '-r', '53', '-c', '1']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(mbpollValues(result.stdout).get(53), 822);
});
