import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JsonDepthGauge, MAX_JSON_DEPTH } from '../../src/http/json-depth.js';
import { HttpError } from '../../src/http/errors.js';
import { startHttpContext } from '../helpers/http-context.js';
import { send, sendJsonBody } from './http-client.js';

/** Depth of a parsed JSON value: arrays and objects count one level each (a scalar is 0). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, depthOf(child)), 0);
}

function exceeds(text: string, limit: number, chunkSize = Infinity): boolean {
  const gauge = new JsonDepthGauge(limit);
  const bytes = Buffer.from(text, 'utf8');
  const step = Math.min(chunkSize, bytes.length || 1);
  for (let offset = 0; offset < bytes.length; offset += step) {
    if (gauge.exceeded(bytes.subarray(offset, offset + step))) return true;
  }
  return false;
}

test('the depth gauge allows 32 levels and refuses 33', () => {
  assert.equal(MAX_JSON_DEPTH, 32);
  assert.equal(exceeds('['.repeat(32) + ']'.repeat(32), MAX_JSON_DEPTH), false);
  assert.equal(exceeds('['.repeat(33) + ']'.repeat(33), MAX_JSON_DEPTH), true);
  assert.equal(exceeds('{"a":'.repeat(33) + '1' + '}'.repeat(33), MAX_JSON_DEPTH), true);
});

test('brackets inside strings, escaped quotes and backslashes do not count', () => {
  const inString = JSON.stringify({ text: '[[[[{{{{\\"[[[', more: '\\\\', after: '"[' });
  assert.equal(exceeds(inString, 1), false);
  assert.equal(exceeds('["\\\\", [[1]]]', 2), true);
  assert.equal(exceeds('["\\"", [1]]', 2), false);
});

test('the gauge agrees with the depth of the parsed value, whatever the chunk boundaries', () => {
  fc.assert(
    fc.property(
      fc.jsonValue({ maxDepth: 8 }),
      fc.integer({ min: 0, max: 8 }),
      fc.integer({ min: 1, max: 7 }),
      (value, limit, chunkSize) => {
        const text = JSON.stringify(value);
        const expected = depthOf(value) > limit;
        assert.equal(exceeds(text, limit), expected, text);
        assert.equal(exceeds(text, limit, chunkSize), expected, text);
      },
    ),
    { numRuns: 2000 },
  );
});

test('an error body echoes bounded values only', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const cyclic: Record<string, unknown> = { name: 'loop' };
  cyclic.self = cyclic;
  const error = new HttpError(400, 'validation_failed', 'm'.repeat(10_000), {
    fields: [{ field: 'x', value: deep }],
    long: 'v'.repeat(100_000),
    many: Array.from({ length: 10_000 }, (_, i) => i),
    cyclic,
    big: 10n,
    ['__proto__']: 'own key',
  });
  const text = JSON.stringify(error.body());
  assert.ok(text.length < 5_000, `error body of ${text.length} characters`);
  const body = JSON.parse(text);
  assert.equal(body.error, 'validation_failed');
  assert.ok(body.message.length <= 501);
  assert.equal(body.details.fields[0].field, 'x');
  assert.equal(body.details.big, '10');
  assert.ok(body.details.long.length <= 201);
  assert.equal(body.details.many.length, 51);
  assert.equal(body.details.many[0], 0);
});

test('a failure while answering closes that one connection, is counted and logged once', async () => {
  const h = await startHttpContext({
    routes: (router) => {
      // An error body the server cannot send: a header value with a line break (RFC 9110 §5.5).
      router.add('POST', '/test/unanswerable', () => {
        throw new HttpError(400, 'bad_request', 'x', {}, { 'X-Broken': 'a\nb' });
      });
      router.add('GET', '/test/fine', (_request, response) => {
        response.end('fine');
      });
    },
  });
  try {
    await assert.rejects(
      sendJsonBody(h.baseUrl, 'POST', '/test/unanswerable', {}),
      /socket hang up|ECONNRESET/,
    );
    const fine = await send(h.baseUrl, 'GET', '/test/fine');
    assert.equal(fine.text, 'fine');
    assert.equal(h.ctx.services.get('http')?.answer_failures, 1);
    const logged = h.logLines.filter((line) => line.includes('/test/unanswerable'));
    assert.equal(logged.length, 1, logged.join('\n'));
    assert.match(logged[0]!, /answer failed, connection closed/);
  } finally {
    await h.close();
  }
});
