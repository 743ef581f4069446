import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import winston from 'winston';
import { createLogger, flushLogger } from '../src/log.js';

/** Captures what the logger's console transport would print. */
function capture(logger: winston.Logger): string[] {
  const lines: string[] = [];
  const console = logger.transports[0] as winston.transports.ConsoleTransportInstance;
  console.log = (info: Record<string | symbol, unknown>, next: () => void) => {
    lines.push(String(info[Symbol.for('message')]));
    next();
  };
  return lines;
}

test('under journald (JOURNAL_STREAM set) lines carry a priority and no timestamp; on a terminal a timestamp', async () => {
  const journald = createLogger('info', { JOURNAL_STREAM: '8:1234' });
  const journaldLines = capture(journald);
  journald.child({ component: 'meter' }).info('opened', { port: 1 });
  journald.debug('hidden below the level');
  journald.warn('slow');
  journald.error('broken');
  assert.deepEqual(journaldLines, [
    '<6>info: [meter] opened {"port":1}',
    '<4>warn: slow',
    '<3>error: broken',
  ]);

  const terminal = createLogger('debug', {});
  const terminalLines = capture(terminal);
  terminal.debug('shown');
  assert.match(terminalLines[0] ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d debug: shown$/);
  await flushLogger(journald);
  await flushLogger(terminal);
});

test('flushLogger returns only after the log file has every line (services.log transport)', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'mg-log-')), 'meter-gateway.log');
  const logger = winston.createLogger({ transports: [new winston.transports.File({ filename: file })] });
  for (let i = 0; i < 5000; i++) logger.info(`line ${i} ${'x'.repeat(100)}`);
  logger.error('last words');
  await flushLogger(logger);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  assert.equal(lines.length, 5001);
  assert.match(lines[5000] ?? '', /last words/);
});
