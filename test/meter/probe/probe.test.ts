import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROBE_STEPS, probeSerialPort } from '../../../src/meter/probe/probe.js';
import { runProbeCli } from '../../../src/meter/probe/probe-cli.js';
import { parseSource } from '../../../src/meter/source.js';
import { corpusDir, requireCommand, requireCorpus } from '../../helpers/environment.js';
import { encryptSmarty } from '../dsmr/smarty-cipher.js';
import { FakeMeter } from '../transport/fake-meter.js';
import { ptyWithMeter } from './pty-meter.js';
import { startRig } from '../../modbus/rtu-rig.js';
import { VirtualClock } from '../../helpers/virtual-clock.js';

/** The bound for a whole probe. */
const PROBE_LIMIT_MS = 30_000;

function corpus(...parts: string[]): Buffer {
  return readFileSync(join(corpusDir, ...parts));
}

function peersPresent(t: TestContext): boolean {
  return requireCommand(t, 'socat') && requireCorpus(t);
}

/**
 * The probe on a virtual clock (docs/architecture.md#clock): the pty and the fake meter are real,
 * the step windows and the budget are virtual. Each window gets `graceMs` of real time, longer
 * than the fake meter's send period, for the meter to show itself; a silent rest is skipped.
 */
async function probeOnVirtualClock(
  path: string,
  graceMs: number,
): Promise<{ result: Awaited<ReturnType<typeof probeSerialPort>>; clock: VirtualClock; started: number }> {
  const clock = new VirtualClock();
  const started = clock.now();
  const result = await clock.settle(probeSerialPort(path, { clock }), graceMs);
  return { result, clock, started };
}

// The probes mostly wait; run them side by side so the file does not take minutes.
describe('probeSerialPort over socat pty pairs', { concurrency: true }, () => {
  it('finds DSMR 4/5 at 115200 8N1 and gives the meter.source URI', async (t) => {
    if (!peersPresent(t)) return;
    const telegram = corpus('dsmr', 'ndokter_v5.txt');
    const pty = await ptyWithMeter(t, (path) => new FakeMeter(path, [telegram], 500));
    const { result } = await probeOnVirtualClock(pty.hostPath, 1500);
    assert.equal(result.status, 'OK');
    assert.equal(result.protocol, 'dsmr');
    assert.equal(result.meterProtocol, 'DSMR');
    assert.deepEqual(result.line, { baudRate: 115200, dataBits: 8, parity: 'none', stopBits: 1 });
    assert.equal(result.identity?.id, 'K8EG004046395507');
    assert.equal(result.source, `serial:${pty.hostPath}?protocol=dsmr&baud=115200&databits=8&parity=none`);
    assert.deepEqual(parseSource(result.source), {
      kind: 'serial',
      path: pty.hostPath,
      protocol: 'dsmr',
      baudRate: 115200,
      dataBits: 8,
      parity: 'none',
      meterInterface: 'P1',
    });
    assert.equal(result.steps[0]?.outcome, 'found');
  });

  it('reports NOT RECOGNIZED on a silent line after every step, within 30 s', async (t) => {
    if (!peersPresent(t)) return;
    const pty = await ptyWithMeter(t);
    const { result, clock, started } = await probeOnVirtualClock(pty.hostPath, 50);
    assert.equal(result.status, 'NOT RECOGNIZED');
    assert.equal(result.source, undefined);
    assert.deepEqual(
      result.steps.map((step) => [step.line, step.outcome]),
      [
        ['115200 8N1', 'silent'],
        ['9600 7E1', 'silent'],
        ['9600 8N1', 'silent'],
        ['300 7E1', 'silent'],
        ['9600 8N1', 'silent'],
      ],
    );
    assert.ok(clock.now() - started < PROBE_LIMIT_MS, `probe took ${clock.now() - started} ms`);
    assert.equal(result.elapsedMs, clock.now() - started);
  });

  it('finds SML at 9600 8N1 after the DSMR steps saw no DSMR frame', async (t) => {
    if (!peersPresent(t)) return;
    const frame = corpus('sml', 'smartmeter-obis_emh_ehz.bin');
    const pty = await ptyWithMeter(t, (path) => new FakeMeter(path, [frame], 1000));
    const { result } = await probeOnVirtualClock(pty.hostPath, 2000);
    assert.equal(result.status, 'OK');
    assert.equal(result.protocol, 'sml');
    assert.equal(result.source, `serial:${pty.hostPath}?protocol=sml&baud=9600&databits=8&parity=none`);
    assert.deepEqual(
      result.steps.map((step) => step.outcome),
      ['no frame', 'no frame', 'found'],
    );
  });

  it('finds an IEC 62056-21 meter that answers the sign-on, for request mode', async (t) => {
    if (!peersPresent(t)) return;
    const identification = corpus('d0', 'smartmeter-obis_iskra_mt174_modeC.txt').subarray(0, 17);
    const pty = await ptyWithMeter(
      t,
      (path) =>
        new FakeMeter(path, [], 100, (received, write) => {
          const request = received.indexOf('/?!\r\n');
          if (request < 0) return received;
          write(identification);
          return received.subarray(request + 5);
        }),
    );
    const { result } = await probeOnVirtualClock(pty.hostPath, 1000);
    assert.equal(result.status, 'OK');
    assert.equal(result.protocol, 'd0');
    assert.equal(result.d0Mode, 'request');
    assert.deepEqual(result.identity, { prefix: 'ISK', model: 'MT174-0001', vendor: 'Iskraemeco' });
    assert.equal(result.source, `serial:${pty.hostPath}?protocol=d0&mode=request`);
  });

  it('finds a Modbus RTU meter by asking: unit id and register map, as a modbus-rtu source', async (t) => {
    if (!requireCommand(t, 'socat')) return;
    const modbusStep = PROBE_STEPS.filter((step) => step.method === 'modbus');
    for (const [profile, unit] of [
      ['dtsu666', 2],
      ['sdm630', 1],
      ['sunspec', 2],
    ] as const) {
      const rig = await startRig(t, {
        METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: profile,
        METER_GATEWAY_SERVICES_MODBUS_RTU_UNIT_ID: String(unit),
      });
      const result = await probeSerialPort(rig.pty.meterPath, { steps: modbusStep });
      assert.equal(result.status, 'OK', profile);
      assert.equal(result.meterProtocol, 'MODBUS');
      assert.equal(result.protocol, undefined);
      // A pty has no line rate: the slave answers at the first rate tried (9600), or at a later
      // one when this busy process answered too late for the first.
      const prefix = `modbus-rtu:${rig.pty.meterPath}?unit=${unit}&profile=${profile}&baud=`;
      const source = result.source ?? '';
      assert.ok(source.startsWith(prefix), source);
      assert.match(source.slice(prefix.length), /^(9600|19200|4800|2400)&parity=none$/);
      assert.equal(parseSource(source).kind, 'modbus-rtu');
      await rig.service.stop();
    }
  });

  it('finds an IEC 62056-21 push meter at 9600 7E1, for push mode', async (t) => {
    if (!peersPresent(t)) return;
    const pushes = corpus('d0', 'smartmeter-obis_emh_ehz_push_x2.txt');
    const pty = await ptyWithMeter(t, (path) => new FakeMeter(path, [pushes], 1000));
    const { result } = await probeOnVirtualClock(pty.hostPath, 2000);
    assert.equal(result.status, 'OK');
    assert.equal(result.protocol, 'd0');
    assert.equal(result.d0Mode, 'push');
    assert.equal(result.identity?.prefix, 'EMH');
    assert.equal(
      result.source,
      `serial:${pty.hostPath}?protocol=d0&mode=push&baud=9600&databits=7&parity=even`,
    );
    assert.deepEqual(
      result.steps.map((step) => step.outcome),
      ['no frame', 'found'],
    );
  });

  it('recognizes encrypted DSMR telegrams without a key and says a key is needed', async (t) => {
    if (!peersPresent(t)) return;
    const frame = encryptSmarty(
      corpus('dsmr', 'meterlogger_luxembourg_smarty.txt'),
      '000102030405060708090A0B0C0D0E0F',
      1,
    );
    const pty = await ptyWithMeter(t, (path) => new FakeMeter(path, [frame], 500));
    const { result } = await probeOnVirtualClock(pty.hostPath, 1500);
    assert.equal(result.status, 'OK');
    assert.equal(result.protocol, 'dsmr');
    assert.equal(result.encrypted, true);
  });

  it('reports NOT CONNECTED at once for a port that does not exist', async () => {
    const result = await probeSerialPort('/dev/meter-gateway-no-such-port');
    assert.equal(result.status, 'NOT CONNECTED');
    assert.match(result.error ?? '', /^no such device; .*meter-gateway probe/);
    assert.equal(result.steps.length, 1);
  });

  it('the probe CLI prints the meter.source URI and exits 0, 1 when nothing is there, 2 on bad usage', async (t) => {
    if (!peersPresent(t)) return;
    const telegram = corpus('dsmr', 'ndokter_v5.txt');
    const pty = await ptyWithMeter(t, (path) => new FakeMeter(path, [telegram], 500));
    const run = async (args: string[]): Promise<{ code: number; out: string; err: string }> => {
      let out = '';
      let err = '';
      const code = await runProbeCli(args, { out: (text) => (out += text), err: (text) => (err += text) });
      return { code, out, err };
    };
    const found = await run([pty.hostPath]);
    assert.equal(found.code, 0);
    assert.match(found.out, /^found: DSMR at 115200 8N1: Iskraemeco, MT382-1000, id K8EG004046395507$/m);
    assert.ok(
      found.out.includes(
        `meter.source: serial:${pty.hostPath}?protocol=dsmr&baud=115200&databits=8&parity=none`,
      ),
    );
    assert.match(found.err, /trying 115200 8N1 \(DSMR 4\/5\)/);
    const absent = await run(['/dev/meter-gateway-no-such-port']);
    assert.equal(absent.code, 1);
    assert.match(absent.out, /^NOT CONNECTED/);
    assert.equal((await run([])).code, 2);
    assert.equal((await run(['a', 'b'])).code, 2);
    assert.equal((await run(['--bogus', 'a'])).code, 2);
  });
});
