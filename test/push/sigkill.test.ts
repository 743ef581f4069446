import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startDaemonProcess } from '../helpers/daemon-process.js';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext } from '../helpers/http-context.js';
import { freePort } from '../helpers/ports.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';
import { flushVictoriaMetrics, startVictoriaMetrics, vmExport } from './engines.js';
import { QUARTER_MS, quarterEnd, quarterHoursAgo, startMeter, stopMeter } from './push-fixture.js';

interface PushView {
  targets: Array<{
    state: string;
    cursor: string | null;
    backlog_quarters: number;
    counts: { retried: number; sent: number };
  }>;
}

test('SIGKILL of the daemon while the receiver is down, restart: all 96 quarter samples of 2 meters arrive, none lost', async (t) => {
  if (!requireCommand(t, 'victoria-metrics')) return;
  const state = tempDir('push-sigkill-', t);
  // 6 hours of quarter hours (main and pv, import and export) in the history, as the daemon's
  // recorders would have written them during the outage.
  const h = await startHttpContext();
  const first = quarterHoursAgo(7);
  try {
    const main = await startMeter(h, 'main', 'grid');
    const pv = await startMeter(h, 'pv', 'pv');
    for (let i = 1; i <= 24; i++)
      await quarterEnd(
        h,
        [
          { meter: main, eIn: 800 + i * 0.5, eOut: 20 + i * 0.1 },
          { meter: pv, eIn: 1 + i * 0.001, eOut: 400 + i * 0.75 },
        ],
        first + i * QUARTER_MS,
      );
    await stopMeter(main);
    await stopMeter(pv);
    cpSync(join(h.stateDir, 'history'), join(state, 'history'), { recursive: true });
  } finally {
    await h.close();
  }
  const port = await freePort();
  const env = {
    METER_GATEWAY_METERS: JSON.stringify([{ id: 'pv', name: 'PV', role: 'pv', source: 'simulator' }]),
    METER_GATEWAY_SERVICES_PUSH_TARGETS: JSON.stringify([
      { id: 'fleet', kind: 'remote_write', url: `http://127.0.0.1:${port}/api/v1/write`, site: 'sigkill' },
    ]),
  };
  const down = await startDaemonProcess(state, env);
  let view: PushView | undefined;
  try {
    view = await waitFor(
      'the push to find the receiver down',
      async () => (await (await fetch(`${down.baseUrl}/api/v1/push`)).json()) as PushView,
      (v) => (v.targets[0]?.counts.retried ?? 0) >= 1,
    );
    assert.equal(view.targets[0]!.state, 'backoff');
    assert.ok(view.targets[0]!.backlog_quarters >= 24);
  } finally {
    down.child.kill('SIGKILL');
    await down.exited;
  }
  const cursorBefore = JSON.parse(readFileSync(join(state, 'push', 'fleet.json'), 'utf8')) as {
    cursor: number;
  };
  assert.ok(cursorBefore.cursor < first / 1000, 'nothing was acknowledged while the receiver was down');
  const vm = await startVictoriaMetrics(t, port);
  const up = await startDaemonProcess(state, env);
  try {
    const stored = async () => {
      await flushVictoriaMetrics(vm);
      const series = await vmExport(
        vm,
        '{__name__=~"meter_active_energy_(import|export)_joules_total",site="sigkill"}',
      );
      return series.flatMap((s) => s.timestamps.filter((ts) => ts > first && ts <= first + 24 * QUARTER_MS));
    };
    const samples = await waitFor(
      'the 96 quarter samples in VictoriaMetrics',
      stored,
      (s) => s.length >= 96,
      { deadlineMs: 60_000, intervalMs: 500 },
    );
    assert.equal(samples.length, 96);
    const cursor = JSON.parse(readFileSync(join(state, 'push', 'fleet.json'), 'utf8')) as { cursor: number };
    assert.ok(
      cursor.cursor >= (first + 23 * QUARTER_MS) / 1000,
      'the cursor is persisted past the last quarter',
    );
  } finally {
    await up.stop();
    await vm.stop();
  }
});
