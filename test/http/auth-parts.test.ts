import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basicPassword, samePassword } from '../../src/http/auth-basic.js';
import { decodeExtValue, parseAuthParams, quoted } from '../../src/digest/auth-params.js';
import { FailureThrottle } from '../../src/http/auth-throttle.js';
import { NonceCounters, NonceIssuer } from '../../src/http/digest-nonce.js';

test('auth-param lists: tokens, quoted strings with escapes, empty elements; malformed lists are refused', () => {
  assert.deepEqual(
    [...parseAuthParams(' username="", realm="a\\"b", nc=00000001 ,, qop=auth,')!],
    [
      ['username', ''],
      ['realm', 'a"b'],
      ['nc', '00000001'],
      ['qop', 'auth'],
    ],
  );
  assert.deepEqual([...parseAuthParams('Algorithm=MD5')!], [['algorithm', 'MD5']]);
  for (const malformed of ['a', 'a=', 'a=b=c', 'a=b c=d', 'x="open', 'a=1, A=2', '=b', 'a="x\\']) {
    assert.equal(parseAuthParams(malformed), undefined, malformed);
  }
  assert.equal(quoted('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(decodeExtValue("UTF-8''J%C3%B6rg"), 'Jörg');
  assert.equal(decodeExtValue("UTF-8''%E0%A4%A"), undefined);
  assert.equal(decodeExtValue('plain'), undefined);
});

test('Basic credentials: password after the first colon, UTF-8; malformed ones yield nothing', () => {
  const encode = (text: string) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;
  assert.equal(basicPassword(encode(':pa:ss')), 'pa:ss');
  assert.equal(basicPassword(encode('user:pässword')), 'pässword');
  assert.equal(basicPassword(encode('no-colon')), undefined);
  assert.equal(basicPassword('Basic not base64!'), undefined);
  assert.equal(samePassword('abc', 'abc'), true);
  assert.equal(samePassword('abc', 'abcd'), false);
});

test('nonces verify only unmodified and only with the issuing secret', () => {
  const issuer = new NonceIssuer();
  const nonce = issuer.issue(1_700_000_000_000);
  assert.equal(issuer.issuedAt(nonce), 1_700_000_000_000);
  const flip = (at: number) => nonce.slice(0, at) + (nonce[at] === 'A' ? 'B' : 'A') + nonce.slice(at + 1);
  assert.equal(issuer.issuedAt(flip(3)), undefined, 'issue time changed');
  assert.equal(issuer.issuedAt(flip(15)), undefined, 'random part changed');
  assert.equal(issuer.issuedAt(flip(30)), undefined, 'signature changed');
  assert.equal(new NonceIssuer().issuedAt(nonce), undefined);
  assert.equal(issuer.issuedAt('short'), undefined);
  assert.notEqual(issuer.issue(1), issuer.issue(1));
});

test('nonce counts: each once, out of order within the window, older ones unknown', () => {
  const counters = new NonceCounters(4, 16);
  assert.equal(counters.use('n', 0, 1), 'fresh');
  assert.equal(counters.use('n', 0, 1), 'replay');
  assert.equal(counters.use('n', 0, 10), 'fresh');
  assert.equal(counters.use('n', 0, 5), 'fresh');
  assert.equal(counters.use('n', 0, 5), 'replay');
  assert.equal(counters.use('n', 0, 30), 'fresh');
  assert.equal(counters.use('n', 0, 14), 'outside', 'below the window of 16');
  assert.equal(counters.use('n', 0, 20), 'fresh', 'its slot was cleared when the window moved');
  assert.equal(counters.use('n', 0, 20), 'replay');
  assert.equal(counters.use('n', 0, 30 + 16 * 3), 'fresh');
  assert.equal(counters.use('n', 0, 30), 'outside');
});

test('a full nonce table forgets its oldest nonce and every nonce issued no later', () => {
  const counters = new NonceCounters(2, 16);
  assert.equal(counters.use('a', 100, 1), 'fresh');
  assert.equal(counters.use('b', 200, 1), 'fresh');
  assert.equal(counters.use('c', 300, 1), 'fresh');
  assert.equal(counters.size, 2);
  assert.equal(counters.use('a', 100, 2), 'forgotten');
  assert.equal(counters.use('d', 50, 1), 'forgotten', 'issued before the forgotten one, never seen');
  assert.equal(counters.use('b', 200, 2), 'fresh');
});

test('failures are free up to a limit, then held back doubling to a cap; success or time clears them', () => {
  let now = 0;
  const throttle = new FailureThrottle(() => now, {
    freeAttempts: 2,
    baseDelayMs: 100,
    maxDelayMs: 350,
    forgetAfterMs: 1000,
    maxAddresses: 2,
  });
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map(() => throttle.fail('a')),
    [0, 0, 100, 200, 350, 350],
  );
  throttle.succeed('a');
  assert.equal(throttle.fail('a'), 0);
  now = 5000;
  assert.equal(throttle.failuresOf('a'), 0, 'forgotten after forgetAfterMs');
  throttle.fail('b');
  throttle.fail('c');
  throttle.fail('d');
  assert.equal(throttle.failuresOf('b'), 0, 'bounded table drops the oldest address');
  assert.equal(throttle.failuresOf('d'), 1);
});
