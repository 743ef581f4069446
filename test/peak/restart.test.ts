// A real daemon process on a TCP meter sending DSMR telegrams of 15 kW import: the peak guard
// sheds ev through a loopback HTTP server; after a SIGKILL and a restart 40 s later ev is still
// shed and no second shed call goes out. Both daemons' clocks start 60 s into a quarter-hour window
// and the 40 s pass on the restarted daemon's clock (MG_TEST_CLOCK_OFFSET_S,
// docs/architecture.md#test-clock-offset), not in the test's time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTelegram } from '../../src/meter/simulator/telegram.js';
import type { HouseholdState } from '../../src/meter/simulator/model.js';
import { startDaemonProcess } from '../helpers/daemon-process.js';
import { waitFor } from '../helpers/wait.js';
import { shiftedClock, type ShiftedClock } from '../helpers/shifted-clock.js';
import { recordingServer } from '../actions/rig.js';

interface PeakAnswer {
  shed: { id: string }[];
  window: { start: string };
  running_kw: number;
  last_reading: string;
}

/**
 * A meter on TCP: one telegram a second to every connection, 15 kW import integrated into A+; its
 * time stamps on `clock`.
 */
async function tcpMeter(clock: ShiftedClock) {
  const state: HouseholdState = {
    phases: [5, 5, 5].map((netKw) => ({
      netKw,
      volts: 230,
      amps: (netKw * 1000) / 230,
    })) as HouseholdState['phases'],
    tariff: 2,
    importKwh: [1000, 2000],
    exportKwh: [0, 0],
    gasM3: 0,
    gasCaptured: { m3: 0, at: 0 },
    powerFailures: { short: 0, long: 0 },
  };
  const sockets = new Set<Socket>();
  let sent = 0;
  const timer = setInterval(() => {
    state.importKwh[1] += 15 / 3600;
    const telegram = buildTelegram(state, clock.now());
    for (const socket of sockets) socket.write(telegram);
    if (sockets.size > 0) sent += 1;
  }, 1000);
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    sent: () => sent,
    async close() {
      clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

test(
  'SIGKILL after the shed call, restart 40 s later: ev still shed, no second shed call, running from the counters ±0.05 kW',
  { timeout: 120_000 },
  async () => {
    // The window must have room for the shed and the 40 s down: the daemons' clocks (and the
    // meter's time stamps) start 60 s into a quarter-hour window, whatever the time of the run.
    const clock = shiftedClock(900_000, 60_000);
    const target = await recordingServer(200);
    const meter = await tcpMeter(clock);
    const state = mkdtempSync(join(tmpdir(), 'peak-restart-'));
    const post = (path: string) => [{ http: { url: `${target.url}${path}`, method: 'POST' } }];
    const env = {
      METER_GATEWAY_METER_SOURCE: `tcp://127.0.0.1:${meter.port}`,
      METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify({
        actions: [
          { id: 'ev_off', requests: post('/ev/off') },
          { id: 'ev_on', requests: post('/ev/on') },
        ],
      }),
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
      METER_GATEWAY_SERVICES_PEAK_GUARD_LIMIT_KW: '1',
      METER_GATEWAY_SERVICES_PEAK_GUARD_ARM_AFTER_S: '0',
      METER_GATEWAY_SERVICES_PEAK_GUARD_STAGES: JSON.stringify([
        { id: 'ev', shed: 'ev_off', restore: 'ev_on', relief_kw: 3.7, min_on_s: 0, min_off_s: 0, locks: [] },
      ]),
    };
    const paths = () => target.requests.map((request) => request.url);
    let second: Awaited<ReturnType<typeof startDaemonProcess>> | undefined;
    try {
      const first = await startDaemonProcess(state, { ...env, ...clock.env() });
      await waitFor('the shed call', paths, (list) => list.length > 0, { deadlineMs: 30_000 });
      const before = (await (await fetch(`${first.baseUrl}/api/v1/peak`)).json()) as PeakAnswer;
      // The daemon wires the guard's series into /metrics.
      const metrics = await (await fetch(`${first.baseUrl}/metrics`)).text();
      assert.match(metrics, /^meter_gateway_peak_shed_stages\{meter="main"\} 1$/m);
      first.child.kill('SIGKILL');
      await first.exited;
      const stored = JSON.parse(readFileSync(join(state, 'peak-guard.json'), 'utf8'));
      assert.deepEqual(
        stored.shed.map((shed: { id: string }) => shed.id),
        ['ev'],
      );
      const DOWN_S = 40;
      second = await startDaemonProcess(state, { ...env, ...clock.env(DOWN_S * 1000) });
      const from = meter.sent();
      await waitFor('ten telegrams to the restarted daemon', meter.sent, (count) => count >= from + 10, {
        deadlineMs: 30_000,
      });
      assert.deepEqual(paths(), ['/ev/off']);
      assert.doesNotMatch(second.output(), /shed ev/);
      // Still reported shed, and the running value continues from the window's counter at its start:
      // 15 kW for the real seconds between the two answers' readings (the restarted daemon's clock
      // is 40 s ahead; the meter's counter is not), ±0.05 kW.
      const after = (await (await fetch(`${second.baseUrl}/api/v1/peak`)).json()) as PeakAnswer;
      assert.deepEqual(
        after.shed.map((shed) => shed.id),
        ['ev'],
      );
      assert.equal(after.window.start, before.window.start);
      const seconds = (Date.parse(after.last_reading) - Date.parse(before.last_reading)) / 1000 - DOWN_S;
      assert.ok(seconds > 0 && seconds < 60, `${seconds} s between the readings`);
      const expected = before.running_kw + (15 * seconds) / 900;
      assert.ok(
        Math.abs(after.running_kw - expected) <= 0.05,
        `running ${after.running_kw}, expected ${expected}`,
      );
      const again = JSON.parse(readFileSync(join(state, 'peak-guard.json'), 'utf8'));
      assert.deepEqual(
        again.shed.map((shed: { id: string }) => shed.id),
        ['ev'],
      );
    } finally {
      await second?.stop();
      await meter.close();
      await target.close();
      rmSync(state, { recursive: true, force: true });
    }
  },
);
