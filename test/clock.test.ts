// The injected clock (docs/architecture.md#clock): the context's wiring, the daemon's offset and
// the virtual clock the timing tests run on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { delay, systemClock } from '../src/clock.js';
import { CLOCK_OFFSET_VARIABLE, createAppContext, daemonClock } from '../src/context.js';
import { dsmrReading } from './mqtt/mqtt-context.js';
import { VirtualClock } from './helpers/virtual-clock.js';

test('advance fires due timers in time order, equal times in the order set, with now() at each', async () => {
  const clock = new VirtualClock(1_000_000);
  const fired: Array<[string, number]> = [];
  const mark = (name: string) => () => fired.push([name, clock.now()]);
  clock.setTimeout(mark('c'), 300);
  clock.setTimeout(mark('a'), 100);
  clock.setTimeout(mark('b1'), 200);
  clock.setTimeout(mark('b2'), 200);
  const never = clock.setTimeout(mark('cleared'), 150);
  clock.setTimeout(mark('later'), 301);
  clock.clearTimeout(never);
  await clock.advance(300);
  assert.deepEqual(fired, [
    ['a', 1_000_100],
    ['b1', 1_000_200],
    ['b2', 1_000_200],
    ['c', 1_000_300],
  ]);
  assert.equal(clock.now(), 1_000_300);
  assert.equal(clock.pending, 1);
  await clock.advance(1);
  assert.deepEqual(fired.at(-1), ['later', 1_000_301]);
});

test('intervals repeat until cleared; refresh re-arms a timer from now', async () => {
  const clock = new VirtualClock(0);
  let ticks = 0;
  const interval = clock.setInterval(() => (ticks += 1), 1000);
  await clock.advance(3500);
  assert.equal(ticks, 3);
  clock.clearInterval(interval);
  await clock.advance(5000);
  assert.equal(ticks, 3);

  let fired = 0;
  const watchdog = clock.setTimeout(() => (fired += 1), 1000);
  await clock.advance(900);
  watchdog.refresh();
  await clock.advance(900);
  assert.equal(fired, 0, 'refreshed at 900 ms: due at 1900 ms');
  await clock.advance(100);
  assert.equal(fired, 1);
  watchdog.refresh();
  await clock.advance(1000);
  assert.equal(fired, 2, 'a fired timer is re-armed by refresh, as in Node');
});

test('promise continuations run between timers: an await after a timer settles before the next fires', async () => {
  const clock = new VirtualClock(0);
  const steps: string[] = [];
  const worker = (async () => {
    await delay(clock, 100);
    steps.push(`woke at ${clock.now()}`);
    await Promise.resolve();
    await delay(clock, 50);
    steps.push(`woke again at ${clock.now()}`);
  })();
  clock.setTimeout(() => steps.push(`timer at ${clock.now()}`), 120);
  await clock.advance(200);
  await worker;
  assert.deepEqual(steps, ['woke at 100', 'timer at 120', 'woke again at 150']);
});

test('delay resolves early when its signal aborts and leaves no timer behind', async () => {
  const clock = new VirtualClock(0);
  const abort = new AbortController();
  let done = false;
  const waiting = delay(clock, 60_000, abort.signal).then(() => (done = true));
  await clock.advance(10);
  assert.equal(done, false);
  abort.abort();
  await waiting;
  assert.equal(clock.pending, 0);
  assert.equal(clock.now(), 10);
});

test('the context hands its clock to the modules: the reading store goes stale on virtual time', async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-clock-'));
  t.after(() => rmSync(stateDir, { recursive: true, force: true }));
  const clock = new VirtualClock();
  const ctx = createAppContext({ env: {}, stateDir, staleAfterMs: 5_000, clock });
  t.after(() => ctx.store.close());
  assert.equal(ctx.clock, clock);
  assert.equal(ctx.now(), clock.now());
  assert.equal(ctx.system.bootTime, clock.now());
  ctx.store.ingest(dsmrReading(clock.now()));
  assert.equal(ctx.store.meter.status, 'OK');
  const statuses: string[] = [];
  ctx.store.on('meter', (state) => statuses.push(state.status));
  await clock.advance(5_000);
  assert.deepEqual(statuses, []);
  await clock.advance(1);
  assert.deepEqual(statuses, ['NO DATA']);
});

test('the daemon clock shifts only the wall clock by MG_TEST_CLOCK_OFFSET_S; its timers stay real', (t) => {
  const virtual = new VirtualClock(1_000_000);
  assert.equal(daemonClock({ [CLOCK_OFFSET_VARIABLE]: '40' }, virtual)(), 1_040_000);
  assert.equal(daemonClock({}, virtual)(), 1_000_000);
  const shifted = daemonClock({ [CLOCK_OFFSET_VARIABLE]: '40' });
  const drift = shifted() - systemClock.now() - 40_000;
  assert.ok(drift <= 0 && drift > -1000, `offset off by ${drift} ms`);
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-clock-'));
  t.after(() => rmSync(stateDir, { recursive: true, force: true }));
  const ctx = createAppContext({ env: {}, stateDir, now: shifted });
  t.after(() => ctx.store.close());
  assert.equal(ctx.now, shifted);
  assert.equal(ctx.clock.now, shifted);
  assert.equal(ctx.clock.setTimeout, systemClock.setTimeout);
});
