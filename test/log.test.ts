import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { consoleTransport, flushLogger, Logger, type LineStream, type LogLevel } from '../src/log.js';
import { LogFile } from '../src/device/log-file.js';
import { startHttpContext } from './helpers/http-context.js';
import { runOutput } from '../src/output-runner.js';
import { waitFor } from './helpers/wait.js';

/** A console logger whose stdout and stderr are line lists. */
function consoleLogger(level: LogLevel, env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const stream = (lines: string[]): LineStream => ({
    write(text, callback) {
      if (text !== '') lines.push(text);
      callback?.();
      return true;
    },
  });
  const logger = Logger.create(level, [], {
    transports: [consoleTransport(env, { out: stream(out), err: stream(err) })],
  });
  return { logger, out, err };
}

test('under journald (JOURNAL_STREAM set) lines carry a priority and no timestamp; on a terminal a timestamp', async () => {
  const journald = consoleLogger('info', { JOURNAL_STREAM: '8:1234' });
  journald.logger.child({ component: 'meter' }).info('opened', { port: 1 });
  journald.logger.debug('hidden below the level');
  journald.logger.warn('slow');
  journald.logger.error('broken');
  assert.deepEqual(journald.out, ['<6>info: [meter] opened {"port":1}\n']);
  assert.deepEqual(
    journald.err,
    ['<4>warn: slow\n', '<3>error: broken\n'],
    'warnings and errors go to stderr',
  );

  const terminal = consoleLogger('debug', {});
  terminal.logger.debug('shown');
  assert.match(terminal.out[0] ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d debug: shown\n$/);
  const stamp = terminal.out[0]!.slice(0, 19);
  assert.ok(Math.abs(Date.parse(stamp.replace(' ', 'T')) - Date.now()) < 60_000, 'local time');
  await flushLogger(journald.logger);
  await flushLogger(terminal.logger);
});

test('children share the level and the sinks added later; child fields and call fields merge', () => {
  const lines: string[] = [];
  const root = Logger.create('info', []);
  const child = root.child({ component: 'modbus', unit: 1 });
  root.addSink({ write: (entry) => lines.push(JSON.stringify(entry.meta)), close: async () => undefined });
  child.info('x', { unit: 2, peer: 'a' });
  child.debug('below the level');
  assert.deepEqual(lines, ['{"component":"modbus","unit":2,"peer":"a"}']);
});

test('services.log: flushLogger returns only after the log file has every line, from the moment it is switched on', async () => {
  const h = await startHttpContext();
  const logFile = new LogFile(h.ctx);
  const logFileOutput = runOutput(h.ctx, logFile);
  try {
    await logFileOutput.start();
    assert.equal(h.ctx.config.apply(new Map([['services.log', true]])).ok, true);
    for (let i = 0; i < 5000; i++) h.ctx.logger.info(`line ${i} ${'x'.repeat(100)}`);
    h.ctx.logger.child({ component: 'main' }).error('last words');
    await flushLogger(h.ctx.logger);
    const lines = readFileSync(logFile.path, 'utf8').trim().split('\n');
    assert.equal(lines.length, 5001);
    const last = JSON.parse(lines[5000]!) as Record<string, string>;
    assert.equal(last.message, 'last words');
    assert.equal(last.level, 'error');
    assert.equal(last.component, 'main');
    assert.ok(Math.abs(Date.parse(last.timestamp!) - Date.now()) < 60_000);
  } finally {
    await logFileOutput.stop();
    await h.close();
  }
});

test('services.log rotates at 1 MB and keeps five files, the newest always meter-gateway.log', async () => {
  const h = await startHttpContext();
  // The log file lives in the SD card folder, beside the CSV logs.
  const dir = join(h.stateDir, 'sd');
  const logFile = new LogFile(h.ctx);
  const logFileOutput = runOutput(h.ctx, logFile);
  try {
    await logFileOutput.start();
    assert.equal(h.ctx.config.apply(new Map([['services.log', true]])).ok, true);
    // ~7.5 MB of lines: more than five files' worth, so the oldest are gone.
    for (let i = 0; i < 30_000; i++) h.ctx.logger.info(`line ${i} ${'x'.repeat(200)}`);
    await flushLogger(h.ctx.logger);
    const files = readdirSync(dir)
      .filter((name) => name.startsWith('meter-gateway'))
      .sort();
    assert.deepEqual(files, [
      'meter-gateway.log',
      'meter-gateway1.log',
      'meter-gateway2.log',
      'meter-gateway3.log',
      'meter-gateway4.log',
    ]);
    const newest = readFileSync(join(dir, 'meter-gateway.log'), 'utf8').trim().split('\n');
    assert.match(newest.at(-1)!, /line 29999 /);
    for (const name of files) assert.ok(readFileSync(join(dir, name)).length <= 1024 * 1024 + 512, name);
  } finally {
    await logFileOutput.stop();
    await h.close();
  }
});

test('services.log: a log file that cannot be opened or written is shown as retrying with the reason and the daemon logs on', async () => {
  const h = await startHttpContext();
  const logFile = new LogFile(h.ctx);
  const logFileOutput = runOutput(h.ctx, logFile);
  try {
    await logFileOutput.start();
    // Cannot be opened: the log path is a directory.
    mkdirSync(logFile.path, { recursive: true });
    assert.equal(h.ctx.config.apply(new Map([['services.log', true]])).ok, true);
    assert.equal(h.ctx.services.get('log')?.state, 'retrying');
    assert.match(String(h.ctx.services.get('log')?.error), /meter-gateway\.log: EISDIR/);
    assert.ok(h.logLines.some((line) => line.includes('log file not opened')));

    // Opened, but every write fails: /dev/full answers ENOSPC, as a full SD card would.
    assert.equal(h.ctx.config.apply(new Map([['services.log', false]])).ok, true);
    rmSync(logFile.path, { recursive: true });
    symlinkSync('/dev/full', logFile.path);
    assert.equal(h.ctx.config.apply(new Map([['services.log', true]])).ok, true);
    assert.equal(h.ctx.services.get('log')?.state, 'running');
    h.ctx.logger.info('into the void');
    await waitFor(
      'the log service retrying',
      () => h.ctx.services.get('log'),
      (s) => s?.state === 'retrying',
    );
    assert.match(String(h.ctx.services.get('log')?.error), /ENOSPC/);
    assert.ok(h.logLines.some((line) => line.includes('log file disabled')));
    h.ctx.logger.info('still logging');
    assert.ok(h.logLines.some((line) => line.includes('still logging')));
  } finally {
    await logFileOutput.stop();
    await h.close();
  }
});
