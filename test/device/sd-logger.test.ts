import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { localDateTime } from '../../src/reading/time-format.js';
import { join } from 'node:path';
import { CSV_COLUMNS, SdLogger } from '../../src/device/sd-logger.js';
import { startHttpContext, syntheticReading } from '../helpers/http-context.js';
import { runOutput } from '../../src/output-runner.js';

process.env.TZ = 'Europe/Amsterdam';

test('a CSV row per write, one file per local day, header once, stale values empty, retention applied', async () => {
  const h = await startHttpContext({
    env: { METER_GATEWAY_SD_LOG_RETENTION_DAYS: '2' },
    staleAfterMs: 30_000,
  });
  try {
    const sdDir = join(h.stateDir, 'sd');
    mkdirSync(sdDir, { recursive: true });
    writeFileSync(join(sdDir, '2000-01-01.csv'), 'old');
    writeFileSync(join(sdDir, 'notes.txt'), 'kept');
    const logger = new SdLogger(h.ctx, h.ctx.logger);
    const loggerOutput = runOutput(h.ctx, logger);
    await loggerOutput.start();
    assert.equal(h.ctx.services.get('sd')?.state, 'disabled');
    const applied = h.ctx.config.apply(
      new Map<string, unknown>([
        ['services.sd.enable', true],
        ['services.sd.frequency', 1440],
      ]),
    );
    assert.equal(applied.ok, true);
    assert.equal(h.ctx.services.get('sd')?.state, 'running');
    assert.deepEqual(readdirSync(sdDir).sort(), ['notes.txt'], 'files past the retention limit are deleted');

    h.ctx.store.ingest(syntheticReading(h.clock.now()));
    logger.writeRow();
    h.clock.advance(40_000); // the reading is now stale
    logger.writeRow();
    h.clock.advance(86_400_000); // next day
    logger.writeRow();
    await loggerOutput.stop();

    const files = readdirSync(sdDir)
      .filter((name) => name.endsWith('.csv'))
      .sort();
    assert.equal(files.length, 2, files.join());
    const [header, fresh, stale] = readFileSync(join(sdDir, files[0]!), 'utf8').trimEnd().split('\n');
    assert.equal(header, CSV_COLUMNS.join(','));
    const cells = (line: string | undefined) =>
      Object.fromEntries(line!.split(',').map((v, i) => [CSV_COLUMNS[i], v]));
    assert.equal(cells(fresh).status, 'OK');
    assert.equal(cells(fresh).energy_active_positive, '18734.512', 'derived total = t1 + t2');
    assert.equal(cells(fresh).voltage_l1, '231.4');
    assert.equal(cells(fresh).volume_1, '4521.338');
    assert.equal(cells(stale).status, 'NO DATA');
    assert.equal(cells(stale).voltage_l1, '', 'no stale value is logged');
    assert.equal(readFileSync(join(sdDir, files[1]!), 'utf8').split('\n')[0], CSV_COLUMNS.join(','));
    assert.ok(existsSync(join(sdDir, 'notes.txt')));
  } finally {
    await h.close();
  }
});

test('the first row of a new day applies the retention limit: no scheduler, clock jumps move nothing', async () => {
  const h = await startHttpContext({ env: { METER_GATEWAY_SD_LOG_RETENTION_DAYS: '2' } });
  try {
    const sdDir = join(h.stateDir, 'sd');
    const logger = new SdLogger(h.ctx, h.ctx.logger);
    const loggerOutput = runOutput(h.ctx, logger);
    await loggerOutput.start();
    h.ctx.config.apply(
      new Map<string, unknown>([
        ['services.sd.enable', true],
        ['services.sd.frequency', 1440],
      ]),
    );
    logger.writeRow();
    const [first] = readdirSync(sdDir);
    h.clock.advance(86_400_000);
    logger.writeRow();
    assert.equal(readdirSync(sdDir).length, 2, 'yesterday is within the limit');
    h.clock.advance(3 * 86_400_000); // e.g. the clock set from the network after boot
    logger.writeRow();
    const left = readdirSync(sdDir);
    assert.equal(left.includes(first!), false, `${first} is past the limit: ${left.join()}`);
    assert.equal(left.length, 1);
    await loggerOutput.stop();
  } finally {
    await h.close();
  }
});

test('a full or read-only SD card is retried, shown as retrying with the reason; the logger goes on and recovers', async () => {
  const h = await startHttpContext();
  const logger = new SdLogger(h.ctx, h.ctx.logger);
  const loggerOutput = runOutput(h.ctx, logger);
  try {
    const sdDir = join(h.stateDir, 'sd');
    // Not writable at all: the folder's place is taken by a file (mkdir fails, ENOTDIR/EEXIST).
    writeFileSync(sdDir, 'not a directory');
    await loggerOutput.start();
    const applied = h.ctx.config.apply(new Map<string, unknown>([['services.sd.enable', true]]));
    assert.ok(applied.ok);
    // The apply rejects: the write learns it, the runner retries.
    assert.deepEqual(
      (await applied.settled).map((failure) => failure.owner),
      ['sd'],
    );
    assert.equal(h.ctx.services.get('sd')?.state, 'retrying');
    assert.match(String(h.ctx.services.get('sd')?.error), /EEXIST|ENOTDIR/);

    // The folder can be made again: a settings change tries again at once.
    rmSync(sdDir);
    mkdirSync(sdDir);
    const again = h.ctx.config.apply(new Map<string, unknown>([['services.sd.frequency', 60]]));
    assert.ok(again.ok);
    assert.deepEqual(await again.settled, []);
    assert.equal(h.ctx.services.get('sd')?.state, 'running');
    assert.equal(h.ctx.services.get('sd')?.error, undefined);

    // Full: the day file is /dev/full, every write answers ENOSPC.
    const day = localDateTime(new Date(h.clock.now())).slice(0, 10);
    symlinkSync('/dev/full', join(sdDir, `${day}.csv`));
    logger.writeRow();
    assert.equal(h.ctx.services.get('sd')?.state, 'retrying');
    assert.match(String(h.ctx.services.get('sd')?.error), /ENOSPC/);
    assert.ok(h.logLines.some((line) => line.includes('cannot write CSV row')));

    // Space again: the next row is written and the state is back to running.
    rmSync(join(sdDir, `${day}.csv`));
    logger.writeRow();
    assert.equal(h.ctx.services.get('sd')?.state, 'running');
    assert.equal(h.ctx.services.get('sd')?.rows, 1);
  } finally {
    await loggerOutput.stop();
    await h.close();
  }
});

test('rows carry the UTC offset: the repeated hour when DST ends is two distinct times (Europe/Amsterdam)', async () => {
  const h = await startHttpContext({ clockFrozen: true });
  try {
    const logger = new SdLogger(h.ctx, h.ctx.logger);
    const loggerOutput = runOutput(h.ctx, logger);
    await loggerOutput.start();
    assert.ok(h.ctx.config.apply(new Map<string, unknown>([['services.sd.enable', true]])).ok);
    // 2026-10-25: clocks go back from 03:00 CEST (+02:00) to 02:00 CET (+01:00).
    h.clock.advance(Date.parse('2026-10-25T00:30:00Z') - h.clock.now());
    logger.writeRow();
    h.clock.advance(3_600_000);
    logger.writeRow();
    await loggerOutput.stop();
    const lines = readFileSync(join(h.stateDir, 'sd', '2026-10-25.csv'), 'utf8')
      .trimEnd()
      .split('\n');
    assert.equal(lines[0]!.split(',')[0], 'date_time', 'the column keeps its name');
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(',')[0]),
      ['2026-10-25T02:30:00+02:00', '2026-10-25T02:30:00+01:00'],
    );
  } finally {
    await h.close();
  }
});

test("a day file begun by an earlier version keeps its header: its rows follow that header's columns", async () => {
  const h = await startHttpContext({});
  try {
    const sdDir = join(h.stateDir, 'sd');
    mkdirSync(sdDir, { recursive: true });
    const today = localDateTime(new Date(h.clock.now())).slice(0, 10);
    // An earlier column set: one quantity fewer, one name the table no longer has.
    const earlier = CSV_COLUMNS.filter((column) => column !== 'voltage_l2').concat('retired_column');
    writeFileSync(join(sdDir, `${today}.csv`), `${earlier.join(',')}\n`);
    const logger = new SdLogger(h.ctx, h.ctx.logger);
    const loggerOutput = runOutput(h.ctx, logger);
    await loggerOutput.start();
    h.ctx.config.apply(
      new Map<string, unknown>([
        ['services.sd.enable', true],
        ['services.sd.frequency', 1440],
      ]),
    );
    h.ctx.store.ingest(syntheticReading(h.clock.now()));
    logger.writeRow();
    await loggerOutput.stop();
    const [header, row] = readFileSync(join(sdDir, `${today}.csv`), 'utf8')
      .trimEnd()
      .split('\n');
    assert.equal(header, earlier.join(','), 'the header is not rewritten');
    const fields = row!.split(',');
    assert.equal(fields.length, earlier.length, 'as many fields as the header names');
    const cells = Object.fromEntries(fields.map((v, i) => [earlier[i], v]));
    assert.equal(cells.voltage_l1, '231.4');
    assert.equal(cells.retired_column, '');
  } finally {
    await h.close();
  }
});
