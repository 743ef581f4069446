import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { requireCommand, requirePeer } from '../helpers/environment.js';
import { mbpollValues } from './clients.js';
import { PYTHON, UNIT, hasPymodbus, mbpollRtu, startRig } from './rtu-rig.js';

/**
 * The request set a Growatt MOD TL3-XH sends while it scans for its meter (a published wire
 * capture), replayed over a socat pty pair by mbpoll and by pymodbus's serial client: every
 * request is answered with data (no exception), and the quantities decode to the synthetic
 * reading of ./fixtures.ts in decimal. `undefined` marks a register the request spans that is not
 * checked (a gap of the map, or a value the grid meter does not send).
 */

const f = Math.fround;
const NaN_ = Number.NaN;

interface Poll {
  fc: 3 | 4;
  start: number;
  count: number;
  /** Expected floats (two registers each) from `start`; undefined: not checked. */
  floats: Array<number | undefined>;
}

const SDM630_POLLS: Poll[] = [
  { fc: 4, start: 0x0000, count: 14, floats: [230.1, 229.8, 231.4, 3.62, 1.87, 1.93, 811] },
  { fc: 4, start: 0x0046, count: 10, floats: [50, 35802.467, 3580.245, 802.3, 124.67] },
  { fc: 4, start: 0x0156, count: 4, floats: [35802.467 + 3580.245, 802.3 + 124.67] },
  { fc: 4, start: 0x0000, count: 18, floats: [230.1, 229.8, 231.4, 3.62, 1.87, 1.93, 811, -412, 423] },
  { fc: 4, start: 0x0034, count: 12, floats: [822, undefined, 1301, undefined, 265, 0.987] },
  { fc: 4, start: 0x0046, count: 12, floats: [50, 35802.467, 3580.245, 802.3, 124.67, undefined] },
];

const DTSU666_POLLS: Poll[] = [
  { fc: 3, start: 0x2000, count: 18, floats: [NaN_, NaN_, NaN_, 2301, 2298, 2314, 3620, 1870, 1930] },
  { fc: 3, start: 0x2012, count: 16, floats: [8220, 8110, -4120, 4230, 2650, 2010, 1160, -520] },
  {
    fc: 3,
    start: 0x202a,
    count: 28,
    floats: [987, NaN_, NaN_, NaN_, ...Array<undefined>(9), 5000],
  },
  { fc: 3, start: 0x101e, count: 12, floats: [35802.467, NaN_, NaN_, NaN_, NaN_, 3580.245] },
];

function close(got: number, want: number, what: string): void {
  if (Number.isNaN(want)) assert.ok(Number.isNaN(got), `${what}: ${got} should be NaN`);
  else assert.ok(Math.abs(got - want) <= Math.abs(want) * 1e-5 + 1e-9, `${what}: ${got} != ${want}`);
}

test('the Growatt request set, read by mbpoll in RTU mode: every request answered, values in decimal', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCommand(t, 'mbpoll')) return;
  for (const [profile, polls] of [
    ['sdm630', SDM630_POLLS],
    ['dtsu666', DTSU666_POLLS],
  ] as const) {
    const rig = await startRig(t, { METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: profile });
    for (const poll of polls) {
      const reference = poll.start + 1;
      const table = poll.fc === 4 ? '3:float' : '4:float';
      const args = ['-t', table, '-B', '-r', String(reference), '-c', String(poll.count / 2)];
      const result = await mbpollRtu(rig.pty.meterPath, args);
      const what = `${profile} ${String(poll.fc).padStart(2, '0')} ${poll.start.toString(16)} x${poll.count}`;
      assert.equal(result.code, 0, `${what}: ${result.stderr}${result.stdout}`);
      const read = mbpollValues(result.stdout.replace(/\bnan\b/gi, 'NaN'));
      assert.equal(read.size, poll.count / 2, `${what}: ${result.stdout}`);
      poll.floats.forEach((want, k) => {
        if (want !== undefined) close(read.get(reference + 2 * k)!, want, `${what} [${k}]`);
      });
    }
    // DTSU666 set-up words 0x0006 IrAt and 0x0007 UrAt (16 bit): 1 and 10 (ratio 1.0 in 0.1).
    if (profile === 'dtsu666') {
      const setup = await mbpollRtu(rig.pty.meterPath, ['-0', '-t', '4', '-r', '6', '-c', '2']);
      assert.equal(setup.code, 0, setup.stderr);
      assert.deepEqual([...mbpollValues(setup.stdout).values()], [1, 10]);
    }
    await rig.service.stop();
  }
});

const PYMODBUS_POLLS = `
import json, struct, sys
from pymodbus.client import ModbusSerialClient
port, unit, polls = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
client = ModbusSerialClient(port=port, baudrate=9600, parity='N', stopbits=1, bytesize=8, timeout=2)
if not client.connect():
    sys.exit('cannot open ' + port)
out = []
for fc, start, count in polls:
    read = client.read_input_registers if fc == 4 else client.read_holding_registers
    result = read(start, count, slave=unit)
    if result.isError():
        out.append({'exception': str(getattr(result, 'exception_code', result))})
        continue
    raw = b''.join(struct.pack('>H', r) for r in result.registers)
    floats = struct.unpack('>%df' % (count // 2), raw) if count % 2 == 0 else []
    out.append({'registers': result.registers, 'floats': [repr(v) for v in floats]})
client.close()
print(json.dumps(out))
`;

interface PyResult {
  exception?: string;
  registers?: number[];
  floats?: string[];
}

function pymodbusPolls(path: string, polls: Array<[number, number, number]>): Promise<PyResult[]> {
  return new Promise((resolve, reject) =>
    execFile(
      PYTHON,
      ['-c', PYMODBUS_POLLS, path, String(UNIT), JSON.stringify(polls)],
      { timeout: 30_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as PyResult[]),
    ),
  );
}

test('the Growatt request set, read by pymodbus: every request answered, values in decimal', async (t) => {
  if (
    !requireCommand(t, 'socat') ||
    !requirePeer(t, await hasPymodbus(), 'python3 with pymodbus (python3-pymodbus)')
  )
    return;
  const rig = await startRig(t, { METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: 'sdm630' });
  for (const [profile, polls] of [
    ['sdm630', SDM630_POLLS],
    ['dtsu666', [...DTSU666_POLLS, { fc: 3, start: 0x0006, count: 2, floats: [] }]],
  ] as const) {
    assert.ok(rig.ctx.config.apply(new Map([['services.modbus_rtu.profile', profile]])).ok);
    const results = await pymodbusPolls(
      rig.pty.meterPath,
      polls.map((poll) => [poll.fc, poll.start, poll.count]),
    );
    results.forEach((result, i) => {
      const poll = polls[i]!;
      const what = `${profile} ${poll.fc} ${poll.start.toString(16)} x${poll.count}`;
      assert.equal(result.exception, undefined, `${what}: exception ${result.exception}`);
      assert.equal(result.registers?.length, poll.count, what);
      poll.floats.forEach((want, k) => {
        if (want !== undefined)
          close(Number(result.floats![k]!.replace('nan', 'NaN')), want, `${what} [${k}]`);
      });
      if (poll.start === 0x0006) assert.deepEqual(result.registers, [1, 10], what);
    });
  }
  // Single precision on the wire: the decoded kWh is the float nearest the meter's value.
  const [energy] = await pymodbusPolls(rig.pty.meterPath, [[3, 0x101e, 2]]);
  assert.equal(Number(energy!.floats![0]), f(35802.467));
});
