import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MeterStatus } from '../../../src/reading/meter-state.js';
import { corpusDir, requireCommand, requireCorpus } from '../../helpers/environment.js';
import { settleWithin, waitFor } from '../../helpers/wait.js';
import { FakeMeter } from './fake-meter.js';
import { meterInput, tempDir, waitForStatus, type Harness } from './meter-input-harness.js';
import { SocatPty } from './socat-pty.js';
import { VirtualRetries } from './virtual-retries.js';

/** A 5-minute retry run: that much of the meter input's reconnect delays. */
const RUN_MS = 5 * 60_000;
/** The backoff's cap (src/backoff.ts default), which the run must reach. */
const CAP_MS = 30_000;

/** How often the status changed into each state. */
function changesPerState(statuses: readonly MeterStatus[]): Map<MeterStatus, number> {
  const counts = new Map<MeterStatus, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return counts;
}

function assertNoFlapping(statuses: readonly MeterStatus[], retries: VirtualRetries): void {
  for (const [status, count] of changesPerState(statuses))
    assert.ok(count <= 1, `${status} entered ${count} times: ${statuses.join(' -> ')}`);
  assert.ok(!statuses.includes('OK'), `never OK: ${statuses.join(' -> ')}`);
  assert.equal(Math.max(...retries.delays), CAP_MS, 'the retries reached the 30 s cap');
  assert.ok(
    retries.delays.filter((delay) => delay === CAP_MS).length >= 3,
    `delays ${retries.delays.join(', ')}`,
  );
}

async function missingPortRun(t: import('node:test').TestContext, query: string): Promise<void> {
  const dir = tempDir('mg-status-');
  const retries = new VirtualRetries();
  const harness = meterInput(dir, `serial:${join(dir, 'no-such-adapter')}?${query}`, {}, retries.timer);
  t.after(() => settleWithin('the meter input to stop', harness.close()));
  const statuses: MeterStatus[] = [];
  harness.store.on('meter', (state) => statuses.push(state.status));
  await harness.input.start();
  await retries.run(RUN_MS);
  assert.equal(harness.store.meter.status, 'NOT CONNECTED');
  assertNoFlapping(statuses, retries);
}

test('a missing serial port (auto protocol) stays NOT CONNECTED through 5 minutes of retries: no RECOGNITION per retry, never OK', async (t) => {
  await missingPortRun(t, 'protocol=auto');
});

test('a missing serial port (DSMR) stays NOT CONNECTED through 5 minutes of retries, never OK', async (t) => {
  await missingPortRun(t, 'protocol=dsmr');
});

test('a pty that vanishes: NOT CONNECTED once, then no status change through 5 minutes of retries', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCorpus(t)) return;
  const dir = tempDir('mg-status-');
  const pty = new SocatPty(dir);
  await pty.start();
  const retries = new VirtualRetries();
  const harness: Harness = meterInput(dir, `serial:${pty.hostPath}?protocol=dsmr`, {}, retries.timer);
  const telegram = readFileSync(join(corpusDir, 'dsmr', 'ndokter_v5.txt'));
  const meter = new FakeMeter(pty.meterPath, [telegram], 300);
  t.after(async () => {
    await Promise.allSettled([meter.stop(), settleWithin('the meter input to stop', harness.close())]);
    await pty.stop();
  });
  meter.start();
  await waitFor('the fake meter to open its end', () => meter.isOpen);
  await harness.input.start();
  await waitForStatus(harness.store, ['OK']);
  const afterFailure: MeterStatus[] = [];
  harness.store.on('meter', (state) => afterFailure.push(state.status));
  await meter.stop();
  await pty.stop();
  await waitForStatus(harness.store, ['NOT CONNECTED']);
  await retries.run(RUN_MS);
  assert.equal(harness.store.meter.status, 'NOT CONNECTED');
  // The stale reading's NO DATA may come before the close; after it, nothing more.
  assertNoFlapping(afterFailure, retries);
});
