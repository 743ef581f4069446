import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogFile } from '../../src/device/log-file.js';
import { startHttpContext } from '../helpers/http-context.js';
import { runOutput } from '../../src/output-runner.js';
import { quietPeriod, waitFor } from '../helpers/wait.js';

test('services.log adds a log file in the SD card folder, beside the CSV logs, while on', async () => {
  const h = await startHttpContext();
  const logFile = new LogFile(h.ctx);
  const logFileOutput = runOutput(h.ctx, logFile);
  try {
    await logFileOutput.start();
    assert.equal(logFile.path, join(h.stateDir, 'sd', 'meter-gateway.log'));
    h.ctx.logger.info('before');
    assert.equal(existsSync(logFile.path), false);
    assert.equal(h.ctx.config.apply(new Map([['services.log', true]])).ok, true);
    h.ctx.logger.info('while on', { component: 'test' });
    await waitFor(
      'the line in the log file',
      () => existsSync(logFile.path) && readFileSync(logFile.path, 'utf8'),
      (text) => String(text).includes('while on'),
    );
    assert.equal(h.ctx.config.apply(new Map([['services.log', false]])).ok, true);
    h.ctx.logger.info('after');
    await quietPeriod(50); // proves an absence: 'after' is not written
    const lines = readFileSync(logFile.path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { message: string; timestamp: string });
    assert.deepEqual(
      lines.map((l) => l.message),
      ['while on'],
    );
    assert.ok(lines[0]!.timestamp);
    assert.equal(h.ctx.services.get('log')?.state, 'disabled');
  } finally {
    await logFileOutput.stop();
    await h.close();
  }
});
