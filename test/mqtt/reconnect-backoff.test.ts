import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reconnectBackoff } from '../../src/mqtt/broker-link.js';

const NOMINAL = [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000];

test('reconnect backoff: 1 s doubling to 60 s, each delay within [nominal/2, nominal]', () => {
  for (const random of [0, 0.5, 0.999999]) {
    const backoff = reconnectBackoff(() => random);
    for (const nominal of NOMINAL) {
      const delay = backoff.next();
      assert.ok(
        delay >= nominal / 2 && delay <= nominal,
        `delay ${delay} outside [${nominal / 2}, ${nominal}] (random ${random})`,
      );
    }
  }
});

test('reconnect backoff: jitter spans the whole interval', () => {
  const shortest = reconnectBackoff(() => 0.999999);
  const longest = reconnectBackoff(() => 0);
  assert.deepEqual([shortest.next(), shortest.next(), shortest.next()], [500, 1000, 2000]);
  assert.deepEqual([longest.next(), longest.next(), longest.next()], [1000, 2000, 4000]);
});

test('reconnect backoff: reset after a successful connect starts again at 1 s', () => {
  const backoff = reconnectBackoff(() => 0);
  for (let i = 0; i < 10; i++) backoff.next();
  assert.equal(backoff.attempts, 10);
  assert.equal(backoff.next(), 60000);
  backoff.reset();
  assert.equal(backoff.attempts, 0);
  assert.equal(backoff.next(), 1000);
});
