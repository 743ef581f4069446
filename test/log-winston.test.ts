import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleLine, Logger } from '../src/log.js';
import TransportStream from 'winston-transport';
import { servicesLogTransport } from '../src/log-transports.js';
import { LogFile } from '../src/device/log-file.js';
import { runOutput } from '../src/output-runner.js';
import { testModuleCommand } from './helpers/environment.js';
import { startHttpContext } from './helpers/http-context.js';

const fileLines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { message: string; level: string; component?: string });

test('services.log: a burst of 5,001 lines followed by SIGTERM has every line in the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'meter-gateway-log-'));
  try {
    const path = join(dir, 'meter-gateway.log');
    const { command, args } = testModuleCommand('log-burst-process');
    const child = spawn(command, [...args, path], { stdio: ['ignore', 'ignore', 'inherit'] });
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('exit', (c, s) => resolve([c, s])),
    );
    assert.equal(signal, null);
    assert.equal(code, 0);
    const lines = fileLines(path);
    assert.equal(lines.length, 5001);
    assert.equal(lines[4999]!.message, `line 4999 ${'x'.repeat(100)}`);
    assert.equal(lines[5000]!.message, 'last words');
    assert.equal(lines[5000]!.component, 'main');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('services.log switched off at run time: every line logged before is in the file, none after', async () => {
  const h = await startHttpContext();
  const logFile = new LogFile(h.ctx);
  const logFileOutput = runOutput(h.ctx, logFile);
  try {
    await logFileOutput.start();
    assert.equal(h.ctx.config.apply(new Map([['services.log', true]])).ok, true);
    for (let i = 0; i < 3000; i++) h.ctx.logger.info(`line ${i} ${'x'.repeat(100)}`);
    assert.equal(h.ctx.config.apply(new Map([['services.log', false]])).ok, true);
    h.ctx.logger.info('after');
    // stop() awaits the transport's end, which the switch-off started.
    await logFileOutput.stop();
    const lines = fileLines(logFile.path);
    assert.equal(lines.length, 3000);
    assert.equal(lines.at(-1)!.message, `line 2999 ${'x'.repeat(100)}`);
  } finally {
    await h.close();
  }
});

test('a destination that cannot keep up: info lines beyond the queue limit are dropped and counted, errors kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'meter-gateway-log-'));
  try {
    const path = join(dir, 'meter-gateway.log');
    const logger = Logger.create('debug', [], { queueLimit: 100, transports: [servicesLogTransport(path)] });
    for (let i = 0; i < 5000; i++) logger.info(`line ${i}`);
    logger.error('kept');
    await logger.close();
    const lines = fileLines(path);
    const infos = lines.filter((line) => line.level === 'info');
    assert.ok(infos.length < 5000, 'some info lines were dropped');
    assert.ok(lines.some((line) => line.level === 'error' && line.message === 'kept'));
    const report = lines.find((line) =>
      line.message.endsWith('log lines dropped: a log destination could not keep up'),
    );
    assert.ok(report, 'the drop is reported');
    assert.equal(
      infos.length + Number.parseInt(report.message, 10),
      5000,
      'every line is either written or counted',
    );
    // What was kept is in order.
    const numbers = infos.map((line) => Number(line.message.split(' ')[1]));
    assert.deepEqual(
      numbers,
      [...numbers].sort((a, b) => a - b),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('control characters in a logged string never reach a console line raw', () => {
  const line = consoleLine(
    {
      time: new Date(),
      level: 'info',
      message: 'probe /dev/ttyUSB0\n<3>error: forged\u0000\u001b[2J',
      meta: { component: 'probe\r', device: '/dev/x\ny' },
    },
    true,
  );
  assert.equal(
    line,
    '<6>info: [probe\\r] probe /dev/ttyUSB0\\n<3>error: forged\\u0000\\u001b[2J {"device":"/dev/x\\ny"}',
  );
  assert.ok(
    [...line].every((c) => c.charCodeAt(0) >= 0x20 && (c.charCodeAt(0) < 0x7f || c.charCodeAt(0) > 0x9f)),
    'no control character',
  );
});

/** A destination slower than the burst: each entry is acknowledged only on a later turn of the event loop. */
class SlowTransport extends TransportStream {
  override log(_info: unknown, next: () => void): void {
    setImmediate(next);
  }
}

test('rotation under a slow writer: the five files hold the newest lines, consecutive, none lost or reordered', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'meter-gateway-log-'));
  try {
    const path = join(dir, 'meter-gateway.log');
    const logger = Logger.create('info', [], {
      transports: [new SlowTransport(), servicesLogTransport(path)],
    });
    for (let i = 0; i < 30_000; i++) logger.info(`line ${i} ${'x'.repeat(200)}`);
    await logger.close();
    const order = ['meter-gateway4.log', 'meter-gateway3.log', 'meter-gateway2.log', 'meter-gateway1.log'];
    const numbers = [...order.map((name) => join(dir, name)), path].flatMap((file) =>
      fileLines(file).map((line) => Number(line.message.split(' ')[1])),
    );
    assert.equal(numbers.at(-1), 29_999);
    numbers.forEach((n, index) => assert.equal(n, numbers[0]! + index, `line ${index}`));
    assert.ok(numbers.length > 4 * 4000, 'five files of about 1 MB');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
