import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OfflineQueue, type QueuedMessage } from '../../src/mqtt/offline-queue.js';

const message = (n: number, payload = `m${n}`): QueuedMessage => ({
  topic: 't',
  payload,
  qos: 0,
  retain: false,
});

test('offline queue: oldest dropped and counted beyond the message limit', () => {
  const queue = new OfflineQueue({ maxMessages: 3, maxBytes: 1_000_000 });
  for (let n = 1; n <= 5; n++) queue.push(message(n));
  assert.equal(queue.length, 3);
  assert.equal(queue.dropped, 2);
  assert.deepEqual(
    queue.drain().map((m) => m.payload),
    ['m3', 'm4', 'm5'],
  );
  assert.equal(queue.length, 0);
  assert.equal(queue.size, 0);
});

test('offline queue: byte limit counts UTF-8 bytes', () => {
  const queue = new OfflineQueue({ maxMessages: 100, maxBytes: 10 });
  queue.push(message(1, 'ää')); // 4 bytes
  queue.push(message(2, 'äää')); // 6 bytes -> 10, fits
  assert.equal(queue.dropped, 0);
  queue.push(message(3, 'x')); // 11 -> oldest goes
  assert.equal(queue.dropped, 1);
  assert.equal(queue.size, 7);
  assert.deepEqual(
    queue.drain().map((m) => m.payload),
    ['äää', 'x'],
  );
});

test('offline queue: a message larger than the byte limit is dropped itself', () => {
  const queue = new OfflineQueue({ maxMessages: 100, maxBytes: 4 });
  queue.push(message(1, 'ab'));
  queue.push(message(2, 'abcdefgh'));
  assert.equal(queue.length, 0);
  assert.equal(queue.dropped, 2);
});

test('offline queue: requeued in-flight messages go to the head in their order', () => {
  const queue = new OfflineQueue({ maxMessages: 4, maxBytes: 1_000_000 });
  queue.push(message(3));
  queue.push(message(4));
  queue.requeue([message(1), message(2)]);
  assert.deepEqual(
    queue.drain().map((m) => m.payload),
    ['m1', 'm2', 'm3', 'm4'],
  );
  queue.push(message(5));
  queue.push(message(6));
  queue.push(message(7));
  queue.requeue([message(1), message(2)]);
  assert.equal(queue.dropped, 1);
  assert.deepEqual(
    queue.drain().map((m) => m.payload),
    ['m2', 'm5', 'm6', 'm7'],
  );
});
