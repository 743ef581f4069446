import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SerialLink } from '../../../src/serial/serial-link.js';
import type { MeterStatus } from '../../../src/reading/meter-state.js';
import { corpusDir, requireCommand, requireCorpus } from '../../helpers/environment.js';
import { FakeMeter } from './fake-meter.js';
import { meterInput, tempDir, waitForStatus, type Harness } from './meter-input-harness.js';
import { SocatPty } from './socat-pty.js';
import { settleWithin, waitFor } from '../../helpers/wait.js';
import { VirtualClock } from '../../helpers/virtual-clock.js';

/** The bound for getting back to OK after the pty returns. */
const RECOVERY_MS = 5000;

function corpus(...parts: string[]): Buffer {
  return readFileSync(join(corpusDir, ...parts));
}

interface Rig {
  pty: SocatPty;
  harness: Harness;
  meter: FakeMeter;
  statuses: MeterStatus[];
}

/**
 * Stops the fake meter, the meter input and socat, each within a deadline (socat's is in
 * SocatPty.stop) and each even when an earlier one failed: a stuck port fails the test, never
 * hangs the run.
 */
async function teardown({ pty, harness, meter }: Omit<Rig, 'statuses'>): Promise<void> {
  const steps = await Promise.allSettled([
    meter.stop(),
    settleWithin('the meter input to stop', harness.close()),
  ]);
  await pty.stop();
  for (const step of steps) if (step.status === 'rejected') throw step.reason;
}

/** A socat pty pair, a meter input on its host end and a fake meter on the other end. */
async function rig(
  t: import('node:test').TestContext,
  query: string,
  makeMeter: (meterPath: string) => FakeMeter,
): Promise<Rig> {
  const dir = tempDir('mg-serial-');
  const pty = new SocatPty(dir);
  await pty.start();
  const harness = meterInput(dir, `serial:${pty.hostPath}?${query}`);
  const meter = makeMeter(pty.meterPath);
  const statuses: MeterStatus[] = [];
  harness.store.on('meter', (state) => statuses.push(state.status));
  t.after(() => teardown({ pty, harness, meter }));
  meter.start();
  // A meter in request mode answers only once its end is open: the first sign-on must find it.
  await waitFor('the fake meter to open its end', () => meter.isOpen);
  await harness.input.start();
  return { pty, harness, meter, statuses };
}

/** Kills socat: NOT CONNECTED; starts it again: OK within the 5 s, without restarting the input. */
async function unplugAndReplug({ pty, harness }: Rig): Promise<void> {
  const framesBefore = harness.store.counters.framesOk;
  await pty.stop();
  await waitForStatus(harness.store, ['NOT CONNECTED']);
  await pty.start();
  await waitForStatus(harness.store, ['OK'], RECOVERY_MS);
  assert.ok(harness.store.counters.framesOk > framesBefore);
}

test('DSMR over a pty: OK with values, NOT CONNECTED without the port, OK again, NO DATA when silent', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCorpus(t)) return;
  const telegram = corpus('dsmr', 'ndokter_v5.txt');
  const setup = await rig(t, 'protocol=dsmr', (path) => new FakeMeter(path, [telegram], 300));
  const { store } = setup.harness;
  await waitForStatus(store, ['OK']);
  assert.equal(store.latest?.values.get('1.8.1')?.value, 4.426);
  assert.equal(store.meter.protocol, 'DSMR');
  assert.equal(store.meter.identity.id, 'K8EG004046395507');
  assert.equal(store.meter.interface, 'P1');
  await unplugAndReplug(setup);
  await setup.meter.stop();
  await waitForStatus(store, ['NO DATA']);
  assert.deepEqual(setup.statuses.slice(0, 2), ['NO DATA', 'OK']);
});

test('a serial port that is absent at start is NOT CONNECTED and retried until it appears', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCorpus(t)) return;
  const dir = tempDir('mg-serial-');
  const pty = new SocatPty(dir);
  const harness = meterInput(dir, `serial:${pty.hostPath}?protocol=dsmr`);
  const meter = new FakeMeter(pty.meterPath, [corpus('dsmr', 'ndokter_v5.txt')], 300);
  t.after(() => teardown({ pty, harness, meter }));
  await harness.input.start();
  assert.equal(harness.store.meter.status, 'NOT CONNECTED');
  await waitFor(
    'a retry',
    () => harness.warnings,
    (lines) => lines.some((line) => /cannot open serial:.*retrying in 1 s/.test(line)),
  );
  await pty.start();
  meter.start();
  await waitForStatus(harness.store, ['OK']);
});

test('SML over a pty at the SML line defaults', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCorpus(t)) return;
  const frame = corpus('sml', 'smartmeter-obis_emh_ehz.bin');
  const setup = await rig(t, 'protocol=sml', (path) => new FakeMeter(path, [frame], 300));
  const { store } = setup.harness;
  await waitForStatus(store, ['OK']);
  assert.equal(store.latest?.values.get('1.8.0')?.value, 15338.5557);
  assert.equal(store.meter.protocol, 'SML');
  assert.equal(store.meter.interface, 'OPTICAL');
  await unplugAndReplug(setup);
});

/** An IEC 62056-21 mode C meter: identification on `/?!`, the data message after the option select. */
function modeCMeter(path: string): FakeMeter {
  const capture = corpus('d0', 'smartmeter-obis_iskra_mt174_modeC.txt');
  const identification = capture.subarray(0, 17);
  const dataMessage = capture.subarray(23);
  return new FakeMeter(path, [], 100, (received, write) => {
    const text = received.toString('latin1');
    const request = text.indexOf('/?!\r\n');
    if (request >= 0) {
      write(identification);
      return received.subarray(request + 5);
    }
    // Option select ACK 0 Z 0 CR LF (IEC 62056-21 §6.3.3).
    const ack = text.indexOf('\x06');
    const end = ack >= 0 ? text.indexOf('\r\n', ack) : -1;
    if (end >= 0) {
      write(dataMessage);
      return received.subarray(end + 2);
    }
    return received.subarray(Math.max(0, received.length - 64));
  });
}

test('IEC 62056-21 request mode over a pty: sign-on, option select, readout, polled again', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCorpus(t)) return;
  const setup = await rig(t, 'protocol=d0&poll=1', modeCMeter);
  const { store } = setup.harness;
  await waitForStatus(store, ['OK']);
  assert.equal(store.latest?.values.get('1.8.0')?.value, 8048.375);
  assert.equal(store.meter.protocol, 'IEC62056-21');
  assert.equal(store.meter.identity.id, '63355730');
  // Request at 300 Bd, then the option select for the 9600 Bd the identification offers ('5').
  assert.ok(setup.meter.heard.includes('/?!\r\n\x06050\r\n'), JSON.stringify(setup.meter.heard.slice(0, 40)));
  const readouts = store.counters.framesOk;
  await waitFor(
    'two more polls',
    () => store.counters.framesOk,
    (frames) => frames >= readouts + 2,
  );
  assert.ok(store.counters.bytes > 9505, 'the readout bytes are counted');
  await unplugAndReplug(setup);
});

test('IEC 62056-21 push (mode=push) over a pty: the readouts are only listened to', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCorpus(t)) return;
  const pushes = corpus('d0', 'smartmeter-obis_emh_ehz_push_x2.txt');
  const setup = await rig(t, 'protocol=d0&mode=push', (path) => new FakeMeter(path, [pushes], 300));
  const { store } = setup.harness;
  await waitForStatus(store, ['OK']);
  assert.ok([32942.0231, 32942.0234].includes(store.latest?.values.get('1.8.1')?.value ?? 0));
  assert.equal(setup.meter.heard, '', 'nothing is sent to a push meter');
  await unplugAndReplug(setup);
});

test('protocol=auto on a serial port: RECOGNITION while probing, then OK with the detected protocol', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCorpus(t)) return;
  const telegram = corpus('dsmr', 'ndokter_v5.txt');
  const setup = await rig(t, 'protocol=auto', (path) => new FakeMeter(path, [telegram], 300));
  const { store } = setup.harness;
  await waitForStatus(store, ['OK']);
  assert.equal(store.meter.protocol, 'DSMR');
  assert.equal(setup.statuses[0], 'RECOGNITION');
  assert.ok(setup.harness.warnings.length === 0, setup.harness.warnings.join('\n'));
  await unplugAndReplug(setup);
});

test('protocol=auto on a silent port: stopping the input ends the probe and frees the port', async (t) => {
  if (!requireCommand(t, 'socat')) return;
  const dir = tempDir('mg-serial-');
  const pty = new SocatPty(dir);
  await pty.start();
  // The probe's windows on a clock that never moves: only the stop can end the probe.
  const clock = new VirtualClock();
  const harness = meterInput(dir, `serial:${pty.hostPath}?protocol=auto`, {}, undefined, clock);
  t.after(async () => {
    await harness.close();
    await pty.stop();
  });
  await harness.input.start();
  assert.equal(harness.store.meter.status, 'RECOGNITION');
  await settleWithin('the probe to end on stop', harness.input.stop());
  // The probe held the port with an exclusive lock; after stop() it can be opened again.
  const link = await SerialLink.open(pty.hostPath, {
    baudRate: 9600,
    dataBits: 8,
    parity: 'none',
    stopBits: 1,
  });
  await link.close();
});
