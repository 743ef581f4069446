import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QUANTITY_BY_OBIS } from '../../src/reading/quantities.js';
import { toCanonical } from '../../src/reading/units.js';
import { startDaemon } from '../helpers/daemon-process.js';
import { waitFor } from '../helpers/wait.js';
import { cliCommand, corpusDir, repoRoot, requireCorpus } from '../helpers/environment.js';

function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { status: number | null; stdout: string; stderr: string } {
  const { command, args: base } = cliCommand();
  const result = spawnSync(command, [...base, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('--help, --version, unknown flag and unknown command', () => {
  const help = runCli(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /meter-gateway \[--config FILE\] \[--state-dir DIR\]/);
  const version = runCli(['--version']);
  assert.equal(version.status, 0);
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  assert.equal(version.stdout.trim(), pkg.version);
  const unknownFlag = runCli(['--bogus']);
  assert.equal(unknownFlag.status, 2);
  assert.match(unknownFlag.stderr, /Unknown option '--bogus'[\s\S]*Usage:/);
  assert.equal(runCli(['frobnicate']).status, 2);
});

test('a bad config value in the environment or file: exit 1 with one line naming the key', () => {
  const state = mkdtempSync(join(tmpdir(), 'mg-cli-'));
  const env = runCli(['--state-dir', state], { METER_GATEWAY_SERVICES_REPORT_INTERVAL: '0' });
  assert.equal(env.status, 1);
  assert.equal(
    env.stderr.trim(),
    'meter-gateway: configuration error: environment: services.report_interval: must be an integer in 1..3600: value was 0',
  );
  const source = runCli(['--state-dir', state], { METER_GATEWAY_METER_SOURCE: 'ftp://meter' });
  assert.equal(source.status, 1);
  assert.match(source.stderr, /meter\.source "ftp:\/\/meter": must be simulator/);
  const missing = runCli(['--config', join(state, 'absent.json')]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /cannot read config file/);
});

test('a bad meter.source in the admin file: exit 1 with the key named, before anything starts', () => {
  const state = mkdtempSync(join(tmpdir(), 'mg-cli-'));
  const file = join(state, 'config.json');
  writeFileSync(file, JSON.stringify({ meter: { source: 'tcp://meter-without-port' } }));
  const result = runCli(['--config', file, '--state-dir', state]);
  assert.equal(result.status, 1);
  assert.match(
    result.stderr.trim(),
    /^meter-gateway: configuration error: .*config\.json: meter\.source "tcp:\/\/meter-without-port": /,
  );
  assert.deepEqual(readdirSync(state), ['config.json']);
});

/** Value at a report path, e.g. ['energy','active','positive','t1']. */
function at(report: Record<string, unknown>, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], report);
}

interface ExpectedEntry {
  value?: unknown;
  unit?: string | null;
  channel?: number;
}

test('parse prints the report of every DSMR capture with the values its expected JSON asserts', (t) => {
  if (!requireCorpus(t)) return;
  const dir = join(corpusDir, 'dsmr');
  const files = readdirSync(dir).filter((name) => name.endsWith('.txt'));
  assert.ok(files.length >= 15, `only ${files.length} captures`);
  let compared = 0;
  for (const file of files) {
    const expected = JSON.parse(
      readFileSync(join(dir, file.replace(/\.txt$/, '.expected.json')), 'utf8'),
    ) as {
      expected?: Record<string, ExpectedEntry> | null;
    };
    const result = runCli(['parse', join(dir, file), '--protocol', 'dsmr']);
    assert.equal(result.status, 0, `${file}: ${result.stderr}`);
    const { report } = JSON.parse(result.stdout) as { report: Record<string, unknown> };
    for (const [obis, entry] of Object.entries(expected.expected ?? {})) {
      const match = /^1-\d+:(\d+\.\d+\.\d+)$/.exec(obis);
      const quantity = match ? QUANTITY_BY_OBIS.get(match[1]!) : undefined;
      if (!quantity || entry.value === null || entry.value === undefined || Number.isNaN(Number(entry.value)))
        continue;
      const want = toCanonical(Number(entry.value), entry.unit ?? quantity.unit).value;
      assert.equal(at(report, quantity.reportPath), want, `${file} ${obis}`);
      compared += 1;
    }
    const gas = Object.entries(expected.expected ?? {}).filter(([obis]) => /^0-\d:24\.2\.[13]$/.test(obis));
    for (const [obis, entry] of gas) {
      if (entry.value === null || entry.value === undefined) continue;
      const bus = Number(obis.slice(2, 3));
      const volume = (report.volume as Array<{ bus: number; cumulative?: number }> | undefined)?.find(
        (v) => v.bus === bus,
      );
      assert.equal(volume?.cumulative, Number(entry.value), `${file} ${obis}`);
      compared += 1;
    }
  }
  t.diagnostic(`compared ${compared} values across ${files.length} captures: ${files.join(', ')}`);
  assert.ok(compared > 150, `only ${compared} values compared`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`the daemon shows simulator readings and exits 0 within 5 s on ${signal}`, async () => {
    const state = mkdtempSync(join(tmpdir(), 'mg-daemon-'));
    const { child, output } = startDaemon(state);
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.on('exit', (code) => resolve({ code, at: Date.now() })),
    );
    await waitFor('first reading', output, (text) =>
      /reading 1 \(DSMR\): import [\d.]+ kW, export [\d.]+ kW, energy in [\d.]+ kWh/.test(text),
    );
    await waitFor('running', output, (text) => /meter-gateway \S+ running/.test(text));
    const sentAt = Date.now();
    child.kill(signal);
    const { code, at } = await exited;
    assert.equal(code, 0, output());
    assert.ok(at - sentAt < 5000, `stopped after ${at - sentAt} ms`);
    assert.match(output(), new RegExp(`stopping \\(${signal}\\)[\\s\\S]*stopped`));
  });
}

test('an HTTP port that is taken exits 78 (EX_CONFIG) saying how to choose another', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as AddressInfo;
  try {
    const state = mkdtempSync(join(tmpdir(), 'mg-port-'));
    const { command, args } = cliCommand();
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(command, [...args, '--state-dir', state], {
        cwd: repoRoot,
        env: {
          ...process.env,
          METER_GATEWAY_HTTP_HOST: '127.0.0.1',
          METER_GATEWAY_HTTP_PORT: String(port),
          METER_GATEWAY_SERVICES_BROADCAST: 'false',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('exit', (code) => resolve({ code, output }));
    });
    assert.equal(result.code, 78, result.output);
    assert.match(result.output, /start-up failed: http failed to start: .*EADDRINUSE/);
    assert.match(
      result.output,
      new RegExp(
        `HTTP port ${port} is in use by another program; choose another port: METER_GATEWAY_HTTP_PORT=\\d+`,
      ),
    );
  } finally {
    blocker.close();
  }
});

test('a state directory that cannot be created stops the start before anything starts, exit 1 with the original error', async () => {
  const parent = join(mkdtempSync(join(tmpdir(), 'mg-no-state-')), 'a-file');
  writeFileSync(parent, '');
  const daemon = startDaemon(join(parent, 'state'));
  const code = await daemon.exited;
  const output = daemon.output();
  assert.equal(code, 1, output);
  // The state folder's lock comes first (docs/architecture.md#state-folder-lock): no service started.
  assert.doesNotMatch(output, /listening|stopping what had started/);
  const lines = output.trim().split('\n');
  assert.match(lines[lines.length - 1]!, /start-up failed: ENOTDIR: not a directory, mkdir/);
  assert.doesNotMatch(output, /write after end|uncaught error/);
});
