// The running value rebuilt from the history's closed minutes after a restart without a usable
// state file: a real history recorder writes its ring files, is abandoned (a crash: its open
// minute is lost), and a new recorder and a peak guard start on the same state directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HistoryRecorder } from '../../src/history/recorder.js';
import type { HistoryPoint } from '../../src/history/point.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakEngine } from '../../src/peak/engine.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { energySince } from '../../src/peak/rebuild.js';
import { startHttpContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { meterReading, recorderOn, setClock } from '../history/history-fixture.js';
import { BELGIUM } from './simulate.js';

process.env.TZ = 'Europe/Brussels';

const at = (text: string) => Date.parse(text);
const point = (t: string, eIn: number | null, kw: number): HistoryPoint => ({
  t: at(t) / 1000,
  n: 60,
  eIn,
  eOut: null,
  pIn: { n: 60, min: kw, sum: kw * 60, max: kw },
});

test('energy since 18:00 from minutes: the sum of E_In, the stretch after the last minute at its mean power', () => {
  const points = [
    point('2026-12-01T17:59:00', 0.5, 30), // before the window: not counted
    point('2026-12-01T18:00:00', 0.05, 3),
    point('2026-12-01T18:01:00', null, 3), // no delta: skipped
    point('2026-12-01T18:02:00', 0.1, 6),
  ];
  const energy = energySince(points, at('2026-12-01T18:00:00'), at('2026-12-01T18:04:30'));
  // 0.05 + 0.1 + 6 kW × 90 s (18:03:00–18:04:30) / 3600 = 0.3 kWh.
  assert.ok(Math.abs(energy.kwh - 0.3) < 1e-9, `${energy.kwh}`);
  assert.deepEqual([energy.minutes, energy.estimatedS], [2, 90]);
  assert.deepEqual(energySince([], 0, 1000), { kwh: 0, minutes: 0, estimatedS: 0 });
});

test('the engine wants a window rebuilt only when its counter is from another window', () => {
  const engine = new PeakEngine(BELGIUM, 10_000);
  assert.equal(engine.needsWindow(at('2026-12-01T18:05:00')), true);
  engine.reading({ at: at('2026-12-01T18:05:00'), importKwh: 100, importKw: 1 });
  assert.equal(engine.needsWindow(at('2026-12-01T18:14:59')), false);
  assert.equal(engine.needsWindow(at('2026-12-01T18:15:00')), true);
  engine.seedWindow(at('2026-12-01T18:20:00'), 101, 0.5);
  // 0.5 kWh in the 900 s window: 2.0 kW so far.
  engine.reading({ at: at('2026-12-01T18:20:01'), importKwh: 101, importKw: 1 });
  assert.equal(engine.snapshot(at('2026-12-01T18:20:01')).quantities!.running_kw, 2);
});

test('state file lost, daemon down 18:09:20–18:10:00: running rebuilt from the history minutes within ±0.05 kW', async () => {
  const h = await startHttpContext({
    clockFrozen: true,
    env: {
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
      METER_GATEWAY_SERVICES_PEAK_GUARD_LIMIT_KW: '20',
    },
  });
  const crashed = recorderOn(h);
  const kw = 3.3;
  const kwhAt = (ms: number) => 1000 + (kw * (ms - at('2026-12-01T18:00:00'))) / 3_600_000;
  let recorder: HistoryRecorder | undefined;
  let guard: ReturnType<typeof runOutput> | undefined;
  try {
    setClock(h, at('2026-12-01T18:00:00'));
    await crashed.recorder.start();
    for (let ms = at('2026-12-01T18:00:00'); ms <= at('2026-12-01T18:09:20'); ms += 1000) {
      setClock(h, ms);
      crashed.ctx.store.ingest(meterReading(ms, { pIn: kw, eIn: kwhAt(ms) }));
    }
    crashed.recorder.tick();
    await crashed.recorder.idle();
    // The crash: that recorder is abandoned; its open 18:09 minute is lost. No peak-guard.json.
    assert.equal(existsSync(join(h.stateDir, 'peak-guard.json')), false);
    setClock(h, at('2026-12-01T18:10:00'));
    recorder = new HistoryRecorder(h.ctx, componentLogger(h.ctx.logger, 'history'));
    await recorder.start();
    const minutes = (meter: string, from: number, to: number) =>
      meter === 'main' ? recorder!.query('1m', from, to) : Promise.resolve(undefined);
    const peak = new PeakGuard(
      h.ctx,
      componentLogger(h.ctx.logger, 'peak'),
      { call: () => ({ ok: true }), lock: () => undefined },
      minutes,
    );
    guard = runOutput(h.ctx, peak);
    await guard.start();
    const feed = (ms: number) => {
      setClock(h, ms);
      h.ctx.store.ingest(meterReading(ms, { pIn: kw, eIn: kwhAt(ms) }));
    };
    feed(at('2026-12-01T18:10:00'));
    await waitFor(
      'the rebuild',
      () => h.logLines,
      (lines) => lines.some((line) => /rebuilt from/.test(line)),
    );
    for (let ms = at('2026-12-01T18:10:01'); ms <= at('2026-12-01T18:10:30'); ms += 1000) feed(ms);
    const snapshot = peak.snapshot() as { quantities: { running_kw: number }; window: { start: number } };
    assert.equal(snapshot.window.start, at('2026-12-01T18:00:00'));
    // From the counters: 3.3 kW × 630 s / 900 s = 2.310 kW.
    const expected = (kw * 630) / 900;
    assert.ok(
      Math.abs(snapshot.quantities.running_kw - expected) <= 0.05,
      `running ${snapshot.quantities.running_kw}, expected ${expected}`,
    );
    // Without the history the window would have started at 18:10:00: 3.3 × 30 / 900 = 0.110.
    assert.ok(h.logLines.some((line) => /rebuilt from 9 history minutes \(60 s estimated\)/.test(line)));
  } finally {
    await guard?.stop();
    await recorder?.stop();
    await crashed.close();
    await h.close();
  }
});
