import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecentLayouts } from '../../src/meter/recent-layouts.js';

const contents = (recent: RecentLayouts<string>): string[] =>
  Array.from({ length: recent.size }, (_, k) => recent.at(k));

test('most recently used first, at most capacity; a dropped layout never used is reported', () => {
  const recent = new RecentLayouts<string>(2);
  assert.equal(recent.add('a'), false);
  assert.equal(recent.add('b'), false);
  assert.deepEqual(contents(recent), ['b', 'a']);
  recent.use(1);
  assert.deepEqual(contents(recent), ['a', 'b']);
  assert.equal(recent.add('c'), true, 'b was never used');
  assert.deepEqual(contents(recent), ['c', 'a']);
  assert.equal(recent.add('d'), false, 'a was used');
  recent.use(0);
  assert.equal(recent.add('e'), true, 'c was never used');
  assert.equal(recent.add('f'), false, 'd was used in front');
  recent.clear();
  assert.equal(recent.size, 0);
});
