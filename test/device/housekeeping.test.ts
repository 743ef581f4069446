import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { csvRetentionJob, Housekeeping } from '../../src/device/housekeeping.js';
import { SdLogger } from '../../src/device/sd-logger.js';
import { runOutput } from '../../src/output.js';
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

type Status = { runs: number; failures: number; error?: string };

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
    assert.match(status.error ?? '', /CSV retention: 1 file\(s\) not deleted: EISDIR/);
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
    assert.equal(h.ctx.services.get('housekeeping'), undefined, 'nothing to keep');
    assert.equal(h.ctx.config.apply(new Map<string, unknown>([['services.sd.enable', true]])).ok, true);
    const scheduled = await waitFor(
      'housekeeping to be scheduled',
      () => h.ctx.services.get('housekeeping') as unknown as Status | undefined,
      (seen) => seen !== undefined,
    );
    assert.equal(scheduled?.runs, 1);
  } finally {
    await running.stop();
    await h.close();
  }
});
