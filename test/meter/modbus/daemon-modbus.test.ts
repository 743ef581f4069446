import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { requireCommand } from '../../helpers/environment.js';
import { startDaemonProcess, type ListeningDaemon } from '../../helpers/daemon-process.js';
import { send } from '../../http/http-client.js';
import { SocatPty } from '../transport/socat-pty.js';

/**
 * Two daemons on one RS485 line (a socat pty pair): A reads the simulator and serves it as an
 * SDM630 on its Modbus RTU slave, B reads A with a modbus-rtu: meter source. B's report carries
 * A's values; A going silent turns B's meter NO DATA, and B recovers when A answers again.
 */

interface Report {
  meter: { status: string; protocol?: string; interface?: string };
  report: {
    energy?: { active?: { positive?: { total?: number }; negative?: { total?: number } } };
    voltage?: Record<string, number>;
    instantaneous_power?: { active?: { positive?: { total?: number }; negative?: { total?: number } } };
  };
}

async function report(daemon: ListeningDaemon): Promise<Report> {
  return (await send(daemon.baseUrl, 'GET', '/api/v1/report')).json() as Report;
}

async function waitForStatus(daemon: ListeningDaemon, status: string, deadlineMs = 30_000): Promise<Report> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const body = await report(daemon);
    if (body.meter.status === status) return body;
    if (Date.now() > until) throw new Error(`meter status ${body.meter.status}, expected ${status}`);
    await sleep(100);
  }
}

function near(got: number | undefined, want: number | undefined, what: string): void {
  assert.ok(got !== undefined && want !== undefined, `${what}: ${got} / ${want}`);
  assert.ok(Math.abs(got - want) <= Math.abs(want) * 1e-6 + 1e-6, `${what}: ${got} != ${want}`);
}

test('a daemon reads another daemon over Modbus RTU: same values, NO DATA when silent, back after', async (t) => {
  if (!requireCommand(t, 'socat')) return;
  const dir = mkdtempSync(join(tmpdir(), 'mg-modbus-daemons-'));
  const pty = new SocatPty(dir);
  await pty.start();
  const slaveEnv = {
    METER_GATEWAY_METER_SIMULATOR_INTERVAL: '3600',
    METER_GATEWAY_METER_TIMEOUT: '3600',
    METER_GATEWAY_SERVICES_MODBUS_RTU_ENABLE: 'true',
    METER_GATEWAY_SERVICES_MODBUS_RTU_DEVICE: pty.hostPath,
    METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: 'sdm630',
  };
  // The clean-up is registered before the first daemon starts: a start that fails (a loaded machine)
  // must not leave the other daemon and socat running, which would keep this test process alive.
  const started: { a?: ListeningDaemon; b?: ListeningDaemon } = {};
  t.after(async () => {
    await started.b?.stop();
    await started.a?.stop();
    await pty.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const a = (started.a = await startDaemonProcess(join(dir, 'a'), slaveEnv));
  const b = (started.b = await startDaemonProcess(join(dir, 'b'), {
    METER_GATEWAY_METER_SOURCE: `modbus-rtu:${pty.meterPath}?unit=1&profile=sdm630&interval=0.2`,
    METER_GATEWAY_METER_TIMEOUT: '2',
  }));

  const fed = await waitForStatus(a, 'OK');
  const read = await waitForStatus(b, 'OK');
  assert.equal(read.meter.protocol, 'MODBUS');
  assert.equal(read.meter.interface, 'RS485');
  const [fedEnergy, readEnergy] = [fed.report.energy?.active, read.report.energy?.active];
  near(readEnergy?.positive?.total, fedEnergy?.positive?.total, 'import kWh');
  near(readEnergy?.negative?.total, fedEnergy?.negative?.total, 'export kWh');
  for (const line of ['l1', 'l2', 'l3'])
    near(read.report.voltage?.[line], fed.report.voltage?.[line], `V ${line}`);
  const net = (r: Report): number =>
    (r.report.instantaneous_power?.active?.positive?.total ?? 0) -
    (r.report.instantaneous_power?.active?.negative?.total ?? 0);
  near(net(read), net(fed), 'net kW');

  await a.stop();
  await waitForStatus(b, 'NO DATA');
  started.a = await startDaemonProcess(join(dir, 'a'), slaveEnv);
  const back = await waitForStatus(b, 'OK', 60_000);
  assert.ok(back.report.energy?.active?.positive?.total !== undefined);
});
