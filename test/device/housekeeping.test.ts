import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  csvRetentionJob,
  historyUpkeepJob,
  Housekeeping,
  logUpkeepJob,
} from '../../src/device/housekeeping.js';
import { SdLogger } from '../../src/device/sd-logger.js';
import { REMOVED_MARKER } from '../../src/history/upkeep.js';
import { runOutput } from '../../src/output-runner.js';
import { startHttpContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';

process.env.TZ = 'Europe/Amsterdam';

/** A context whose test clock stands at 23:00 local time today. */
async function beforeMidnight() {
  const h = await startHttpContext({ env: { METER_GATEWAY_SD_LOG_RETENTION_DAYS: '2' } });
  const late = new Date(h.clock.now());
  late.setHours(23, 0, 0, 0);
  h.clock.advance(late.getTime() - h.clock.now());
  return h;
}

type Status = { runs: number; failures: number; last_error?: string };

test('housekeeping runs at start and once for each new local day; a clock jump of days runs it once', async () => {
  const h = await beforeMidnight();
  const runs: number[] = [];
  const housekeeping = new Housekeeping(h.ctx, h.ctx.logger, [
    { name: 'count', needed: () => true, run: (now) => void runs.push(now) },
  ]);
  const running = runOutput(h.ctx, housekeeping);
  const status = () => h.ctx.services.get('housekeeping') as unknown as Status;
  try {
    await running.start();
    assert.equal(runs.length, 1, 'at start');
    await housekeeping.due();
    assert.equal(runs.length, 1, 'not again the same day');
    h.clock.advance(2 * 3_600_000); // 01:00 the next day
    await housekeeping.due();
    assert.equal(runs.length, 2, 'after midnight');
    h.clock.advance(4 * 86_400_000); // the clock set from the network: four midnights skipped
    for (let missed = 0; missed < 4; missed++) await housekeeping.due();
    assert.equal(runs.length, 3, 'once for the new day, not once per skipped day');
    assert.equal(status().runs, 3);
    assert.equal(status().failures, 0);
  } finally {
    await running.stop();
    await h.close();
  }
});

test('CSV retention runs without CSV rows; a file that cannot be deleted is logged and counted, the rest deleted', async () => {
  const h = await beforeMidnight();
  const sdDir = join(h.stateDir, 'sd');
  mkdirSync(join(sdDir, '2000-01-01.csv'), { recursive: true }); // a directory where a CSV file was expected
  writeFileSync(join(sdDir, '2000-01-02.csv'), 'old');
  const housekeeping = new Housekeeping(h.ctx, h.ctx.logger, [
    {
      name: 'failing',
      needed: () => false,
      run: () => {
        throw new Error('boom');
      },
    },
    csvRetentionJob(h.ctx, h.ctx.logger),
  ]);
  const running = runOutput(h.ctx, housekeeping);
  try {
    await running.start();
    const status = h.ctx.services.get('housekeeping') as unknown as Status;
    assert.equal(status.failures, 2, 'both failures counted');
    assert.match(status.last_error ?? '', /CSV retention: 1 file\(s\) not deleted: EISDIR/);
    assert.equal(existsSync(join(sdDir, '2000-01-02.csv')), false, 'the other old file is deleted');
    assert.ok(h.logLines.some((line) => line.includes('housekeeping: failing: boom')));

    // The CSV writer's own retention at the first row of a day meets the same directory: the row is written.
    const sd = new SdLogger(h.ctx, h.ctx.logger);
    const sdOutput = runOutput(h.ctx, sd);
    await sdOutput.start();
    h.ctx.config.apply(
      new Map<string, unknown>([
        ['services.sd.enable', true],
        ['services.sd.frequency', 1440],
      ]),
    );
    h.clock.advance(2 * 3_600_000);
    sd.writeRow();
    assert.equal(h.ctx.services.get('sd')?.rows, 1);
    await sdOutput.stop();
  } finally {
    await running.stop();
    await h.close();
  }
});

test('with no CSV files and SD logging off nothing is scheduled; switching SD logging on schedules and runs it', async () => {
  const h = await beforeMidnight();
  const housekeeping = new Housekeeping(h.ctx, h.ctx.logger, [csvRetentionJob(h.ctx, h.ctx.logger)]);
  const running = runOutput(h.ctx, housekeeping);
  try {
    await running.start();
    assert.deepEqual(
      h.ctx.services.get('housekeeping'),
      { state: 'running', scheduled: false },
      'nothing to keep',
    );
    assert.equal(h.ctx.config.apply(new Map<string, unknown>([['services.sd.enable', true]])).ok, true);
    const scheduled = await waitFor(
      'housekeeping to be scheduled',
      () => h.ctx.services.get('housekeeping') as unknown as Status | undefined,
      (seen) => seen?.runs !== undefined,
    );
    assert.equal(scheduled?.runs, 1);
  } finally {
    await running.stop();
    await h.close();
  }
});

const DAY = 86_400_000;

/** Writes `path` with its modification time `ms` (the test clock's time, not the machine's). */
function fileFrom(path: string, ms: number): void {
  writeFileSync(path, 'x');
  utimesSync(path, ms / 1000, ms / 1000);
}

test('log and history upkeep at start and after midnight; a file that cannot be checked fails its step alone', async () => {
  const h = await beforeMidnight();
  const now = h.clock.now();
  // The log files live in the SD card folder (sd_log.directory, default <state>/sd).
  const sd = join(h.stateDir, 'sd');
  mkdirSync(sd, { recursive: true });
  const state = (name: string) => join(sd, name);
  const history = join(h.stateDir, 'history');
  mkdirSync(history, { recursive: true });
  // services.log is off (default): its files go once unwritten for 30 days.
  fileFrom(state('meter-gateway.log'), now - 40 * DAY);
  fileFrom(state('meter-gateway1.log'), now - 2 * DAY);
  symlinkSync(state('gone'), state('meter-gateway2.log')); // cannot be checked: the step fails
  fileFrom(state('meter-gateway7.log'), now); // past the five kept files
  fileFrom(state('other.log'), now - 40 * DAY); // not a services.log file
  fileFrom(join(history, '1m.ring'), now - 40 * DAY);
  fileFrom(join(history, `1m.ring.corrupt-${now - 31 * DAY}`), now);
  mkdirSync(join(history, `15m.ring.corrupt-${now - 30 * DAY + 3_600_000}`)); // a directory moved aside
  fileFrom(join(history, '1d.ring.tmp'), now - 2 * 3_600_000);
  const housekeeping = new Housekeeping(h.ctx, h.ctx.logger, [
    logUpkeepJob(h.ctx, h.ctx.logger),
    historyUpkeepJob(h.ctx, h.ctx.logger),
  ]);
  const running = runOutput(h.ctx, housekeeping);
  const status = () => h.ctx.services.get('housekeeping') as unknown as Status;
  try {
    await running.start();
    assert.equal(status().runs, 1, 'at start');
    assert.equal(status().failures, 1, 'the log step failed');
    assert.match(status().last_error ?? '', /^log upkeep: 1 file\(s\) not deleted: ENOENT/);
    assert.equal(existsSync(state('meter-gateway.log')), false, 'unwritten for 40 days');
    assert.equal(existsSync(state('meter-gateway1.log')), true, 'written 2 days ago');
    assert.equal(existsSync(state('meter-gateway7.log')), false);
    assert.equal(existsSync(state('other.log')), true);
    assert.equal(existsSync(join(history, '1m.ring')), true, 'ring files are kept');
    assert.equal(existsSync(join(history, `1m.ring.corrupt-${now - 31 * DAY}`)), false);
    assert.equal(existsSync(join(history, `15m.ring.corrupt-${now - 30 * DAY + 3_600_000}`)), true);
    assert.equal(existsSync(join(history, '1d.ring.tmp')), false, 'an unfinished ring file');

    h.clock.advance(2 * 3_600_000); // 01:00 the next day: the directory moved aside is 30 days old
    await housekeeping.due();
    assert.equal(status().runs, 2);
    assert.equal(existsSync(join(history, `15m.ring.corrupt-${now - 30 * DAY + 3_600_000}`)), false);
    assert.equal(status().failures, 2, 'the same log file fails again, counted again');
  } finally {
    await running.stop();
    await h.close();
  }
});

test('with services.log on only rotated files past the kept five go; switching it on schedules the upkeep', async () => {
  const h = await beforeMidnight();
  const now = h.clock.now();
  const housekeeping = new Housekeeping(h.ctx, h.ctx.logger, [logUpkeepJob(h.ctx, h.ctx.logger)]);
  const running = runOutput(h.ctx, housekeeping);
  try {
    await running.start();
    assert.deepEqual(
      h.ctx.services.get('housekeeping'),
      { state: 'running', scheduled: false },
      'no log files: nothing to keep',
    );
    const sd = join(h.stateDir, 'sd'); // the SD card folder, where the log file lives
    mkdirSync(sd, { recursive: true });
    fileFrom(join(sd, 'meter-gateway4.log'), now - 40 * DAY);
    fileFrom(join(sd, 'meter-gateway5.log'), now);
    assert.equal(h.ctx.config.apply(new Map<string, unknown>([['services.log', true]])).ok, true);
    const scheduled = await waitFor(
      'housekeeping to be scheduled',
      () => h.ctx.services.get('housekeeping') as unknown as Status | undefined,
      (seen) => seen?.runs !== undefined,
    );
    assert.equal(scheduled?.runs, 1);
    assert.equal(scheduled?.failures, 0);
    assert.equal(existsSync(join(sd, 'meter-gateway4.log')), true, 'kept while services.log is on');
    assert.equal(existsSync(join(sd, 'meter-gateway5.log')), false);
  } finally {
    await running.stop();
    await h.close();
  }
});

test('a removed meter keeps its history folder for history.keep_removed_days, then it goes; a meter listed again keeps it', async () => {
  const h = await startHttpContext({
    env: {
      METER_GATEWAY_HISTORY_KEEP_REMOVED_DAYS: '2',
      METER_GATEWAY_METERS: JSON.stringify([{ id: 'pv', name: 'PV', role: 'pv', source: 'simulator' }]),
    },
  });
  const meters = join(h.stateDir, 'history', 'meters');
  for (const id of ['pv', 'heat', 'ev']) {
    mkdirSync(join(meters, id), { recursive: true });
    writeFileSync(join(meters, id, '1m.ring'), 'x');
  }
  const housekeeping = new Housekeeping(h.ctx, h.ctx.logger, [historyUpkeepJob(h.ctx, h.ctx.logger)]);
  const running = runOutput(h.ctx, housekeeping);
  const status = () => h.ctx.services.get('housekeeping') as unknown as Status;
  try {
    await running.start();
    assert.equal(status().runs, 1, 'at start: two folders of meters no longer listed');
    for (const id of ['pv', 'heat', 'ev']) assert.equal(existsSync(join(meters, id, '1m.ring')), true, id);
    assert.equal(existsSync(join(meters, 'pv', REMOVED_MARKER)), false, 'a listed meter is never marked');
    assert.equal(existsSync(join(meters, 'heat', REMOVED_MARKER)), true);

    h.clock.advance(DAY);
    await housekeeping.due();
    // "ev" comes back under its id: its history stays and is no longer marked.
    const back = [
      { id: 'pv', name: 'PV', role: 'pv', source: 'simulator' },
      { id: 'ev', name: 'EV', role: 'consumer', source: 'simulator' },
    ];
    assert.equal(h.ctx.config.apply(new Map([['meters', back]])).ok, true);
    h.clock.advance(DAY);
    await housekeeping.due();
    assert.equal(existsSync(join(meters, 'heat')), false, 'removed 2 days ago: deleted');
    assert.equal(existsSync(join(meters, 'ev', '1m.ring')), true, 'listed again: kept');
    assert.equal(existsSync(join(meters, 'ev', REMOVED_MARKER)), false, 'and unmarked');
    assert.equal(existsSync(join(meters, 'pv', '1m.ring')), true);
    assert.equal(status().failures, 0);
  } finally {
    await running.stop();
    await h.close();
  }
});
