import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PointView } from '../../src/history/point.js';
import { RingFile } from '../../src/history/ring-file.js';
import { RESOLUTIONS, TIERS } from '../../src/history/tiers.js';
import { setTimeout as letRun } from 'node:timers/promises';
import { startDaemon, type DaemonProcess } from '../helpers/daemon-process.js';
import { waitFor } from '../helpers/wait.js';
import { shiftedClock } from '../helpers/shifted-clock.js';

/** Ten simulated readings a second. */
const FAST_METER = { METER_GATEWAY_METER_SIMULATOR_INTERVAL: '0.1' };

/**
 * How far before a minute boundary the test and its daemons start: their shared time line
 * (test/helpers/shifted-clock.ts) puts one LEAD_MS ahead instead of waiting for a real one up to
 * 70 s away.
 */
const LEAD_MS = 25_000;

/** Waits until the daemon runs with its history loaded; its HTTP port. */
async function ready(run: DaemonProcess, withMeter = true): Promise<number> {
  await waitFor('running', run.output, (output) => /running \(HTTP on 127\.0\.0\.1:\d+\)/.test(output));
  if (withMeter) await waitFor('first reading', run.output, (output) => /reading 1 \(DSMR\)/.test(output));
  const history = /\[history\] history in .*: .* (\d+) corrupt records ignored/.exec(run.output());
  assert.ok(history, run.output());
  assert.equal(history[1], '0', 'a SIGKILL never leaves a corrupt record');
  return Number(/running \(HTTP on 127\.0\.0\.1:(\d+)\)/.exec(run.output())![1]);
}

async function points(port: number, resolution: string, from: number): Promise<PointView[]> {
  const url = `http://127.0.0.1:${port}/api/v1/history?resolution=${resolution}&from=${from}`;
  const body = (await (await fetch(url)).json()) as { points: PointView[] };
  return body.points;
}

/** How long the daemon that crosses the boundary runs before it (50 readings at 10/s). */
const BEFORE_BOUNDARY_MS = 5000;

/** The first minute boundary at least 10 s after `time`. */
const boundaryAfter = (time: number) => Math.ceil((time + 10_000) / 60_000) * 60_000;

/**
 * The kill plan: each daemon is killed 1.5..3.5 s after it is ready while that stays 6 s before
 * the boundary (more, when starts are slow); the daemon ready then runs across the boundary and is
 * killed 50..250 ms after it, while it writes the minute that closed; then a few more kills within
 * the new minute. How long a start takes is not the test's to choose (seconds under load), so the
 * plan decides from the time each daemon is ready: a daemon ready less than 5 s before the
 * boundary moves the boundary on a minute.
 */
class KillPlan {
  boundary: number;
  private readonly afterCrossing: number[] = [];
  private crossed = false;
  private longestStart = 0;

  constructor(start: number) {
    this.boundary = boundaryAfter(start);
  }

  get done(): boolean {
    return this.crossed && this.afterCrossing.length === 0;
  }

  /** When to kill the daemon that was ready at `readyAt`, `startMs` after it was started. */
  killTime(readyAt: number, startMs: number): number {
    if (this.crossed) return this.afterCrossing.shift()!;
    this.longestStart = Math.max(this.longestStart, startMs);
    if (this.boundary - readyAt < BEFORE_BOUNDARY_MS) this.boundary = boundaryAfter(readyAt);
    const next = readyAt + 1500 + Math.random() * 2000;
    // Another kill only if the daemon started after it (as slow as the slowest start yet) would
    // still be ready 5 s before the boundary; with starts under a second: kills until 6 s before.
    if (next + Math.max(this.longestStart, 1000) + BEFORE_BOUNDARY_MS < this.boundary) return next;
    this.crossed = true;
    this.afterCrossing.push(
      this.boundary + 2000 + Math.random() * 1000,
      this.boundary + 4500 + Math.random() * 1000,
    );
    return this.boundary + 50 + Math.random() * 200;
  }
}

// Runs across a minute boundary 25 s away with a daemon start per kill (a minute later when
// starts are slow): half a minute to a minute and a half.
const ACROSS_A_MINUTE = { timeout: 240_000 };

const KILL_LOOP =
  'SIGKILL loop on the daemon: no corrupt record, at most the open minute lost per kill, roll-ups consistent';

test(KILL_LOOP, ACROSS_A_MINUTE, async () => {
  const state = mkdtempSync(join(tmpdir(), 'mg-history-kill-'));
  const clock = shiftedClock(60_000, 60_000 - LEAD_MS);
  const now = clock.now;
  const clockEnv = clock.env();
  const meterEnv = { ...FAST_METER, ...clockEnv };
  try {
    const testStart = now();
    const runs: Array<{ from: number; to: number }> = [];
    const kills: number[] = [];
    const plan = new KillPlan(testStart);
    while (!plan.done) {
      const started = now();
      const run = startDaemon(state, meterEnv);
      await ready(run);
      const from = now();
      const killAt = plan.killTime(from, from - started);
      // The kill schedule, not a wait for a state: the daemon runs until its kill time.
      await letRun(Math.max(killAt - now(), 0));
      run.child.kill('SIGKILL');
      kills.push(now());
      runs.push({ from, to: now() });
      assert.equal(await run.exited, null);
    }
    const last = startDaemon(state, meterEnv);
    await ready(last);
    const lastFrom = now();
    await letRun(2000);
    last.child.kill('SIGTERM');
    assert.equal(await last.exited, 0, last.output());
    runs.push({ from: lastFrom, to: now() });
    // A daemon without a meter (nothing listens on the discard port) shows the stored history as
    // one consistent snapshot: no reading arrives between the queries.
    const viewer = startDaemon(state, { METER_GATEWAY_METER_SOURCE: 'tcp://127.0.0.1:9', ...clockEnv });
    const port = await ready(viewer, false);
    assert.doesNotMatch(viewer.output(), /reading 1/);
    const since = Math.floor(testStart / 1000) - 60;
    const minutes = await points(port, '1m', since);
    const quarters = await points(port, '15m', since);
    const days = await points(port, '1d', since);
    viewer.child.kill('SIGTERM');
    assert.equal(await viewer.exited, 0, viewer.output());

    // Every minute in which a daemon ran for at least half a second has a point, except a minute
    // that was open (or being written, within 2 s after its end) when a kill came.
    const stored = new Set(minutes.map((p) => p.t));
    const ran = new Set<number>();
    for (const { from, to } of runs) {
      for (let m = Math.floor(from / 60_000) * 60; m * 1000 < to; m += 60) {
        if (Math.min(to, (m + 60) * 1000) - Math.max(from, m * 1000) >= 500) ran.add(m);
      }
    }
    const lost = [...ran].filter((m) => !stored.has(m));
    assert.ok(lost.length <= kills.length);
    for (const m of lost) {
      assert.ok(
        kills.some((k) => k >= m * 1000 && k < (m + 62) * 1000),
        `minute ${m} lost without a kill in it: kills ${kills.join(',')}`,
      );
    }
    // The daemon that ran for 5 s and more up to the boundary stored that minute with its readings
    // (unless the kill came before its write; then the minute counts among the lost ones above).
    const crossing = minutes.find((p) => p.t === plan.boundary / 1000 - 60);
    if (crossing) assert.ok(crossing.n >= 30, `minute before the boundary: ${crossing.n} readings`);
    assert.ok(minutes.length >= 1);
    for (const p of minutes) assert.ok(p.n >= 1 && p.n <= 601, `minute ${p.t}: ${p.n} readings at 10/s`);

    // Coarser buckets are exactly the sum of the minutes in them, across all the kills.
    for (const [coarse, resolution] of [
      [quarters, '15m'],
      [days, '1d'],
    ] as const) {
      for (const point of coarse) {
        const inside = minutes.filter((p) => TIERS[resolution].bucketOf(p.t * 1000) === point.t);
        assert.equal(
          point.n,
          inside.reduce((sum, p) => sum + p.n, 0),
          `${resolution} ${point.t}`,
        );
        const energy = inside.reduce((sum, p) => sum + (p.e_in ?? 0), 0);
        assert.ok(Math.abs((point.e_in ?? 0) - energy) < 1e-6, `${resolution} ${point.t} energy`);
      }
      assert.equal(
        coarse.reduce((sum, p) => sum + p.n, 0),
        minutes.reduce((sum, p) => sum + p.n, 0),
      );
    }
    // And on disk no record is torn.
    for (const resolution of RESOLUTIONS) {
      const { ring } = await RingFile.open(
        join(state, 'history', `${resolution}.ring`),
        TIERS[resolution],
        now(),
      );
      const { counts } = await ring.readAll();
      await ring.close();
      assert.equal(counts.corrupt, 0, resolution);
    }
    console.log(
      `# ${kills.length} kills, ${minutes.length} minutes stored, ${lost.length} lost, ${minutes.reduce((s, p) => s + p.n, 0)} readings`,
    );
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});
