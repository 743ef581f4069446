import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAuthParams, parseChallenges } from '../../src/digest/auth-params.js';
import { digestAlgorithm, digestHex, digestResponseValue } from '../../src/digest/digest.js';
import { digestChallenges } from '../../src/http/auth-digest.js';

test('WWW-Authenticate: several challenges, quoted commas and escapes, bare schemes', () => {
  assert.deepEqual(
    parseChallenges('Basic realm="a, b", Digest realm="x\\"y", nonce=abc, stale=TRUE, Bearer'),
    [
      { scheme: 'basic', params: { realm: 'a, b' } },
      { scheme: 'digest', params: { realm: 'x"y', nonce: 'abc', stale: 'TRUE' } },
      { scheme: 'bearer', params: {} },
    ],
  );
  assert.deepEqual(parseChallenges('Digest Realm=r, realm=s'), [
    { scheme: 'digest', params: { realm: 's' } },
  ]);
  assert.deepEqual(parseChallenges(''), []);
  assert.deepEqual(parseChallenges('realm=r'), [], 'parameters before any scheme belong to none');
  assert.deepEqual(
    parseChallenges('Digest nonce="n", Basic realm="open'),
    [
      { scheme: 'digest', params: { nonce: 'n' } },
      { scheme: 'basic', params: {} },
    ],
    'parsing stops at a quoted-string that never closes',
  );
});

test("the server's own challenges read back through the client's parser", () => {
  const offered = digestChallenges('meter "gateway"', 'n0nce', 'op', true);
  const challenges = parseChallenges(offered.join(', '));
  assert.deepEqual(
    challenges.map((challenge) => challenge.params.algorithm),
    ['SHA-256', 'MD5-sess', 'MD5'],
  );
  for (const challenge of challenges) {
    assert.equal(challenge.scheme, 'digest');
    assert.deepEqual(
      new Map(Object.entries(challenge.params)),
      parseAuthParams(offered[0]!.slice('Digest '.length))?.set('algorithm', challenge.params.algorithm!),
      'one parser: the strict credentials reading of the same text agrees',
    );
    assert.equal(challenge.params.realm, 'meter "gateway"');
    assert.equal(challenge.params.stale, 'true');
  }
});

test('the response value: RFC 7616 §3.9.1 (SHA-256, MD5), -sess and the RFC 2069 form', () => {
  const ha = (hash: 'md5' | 'sha256') => ({
    ha1: digestHex(hash, 'Mufasa:http-auth@example.org:Circle of Life'),
    ha2: digestHex(hash, 'GET:/dir/index.html'),
    nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
    cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
    nc: '00000001',
  });
  assert.equal(
    digestResponseValue(digestAlgorithm('SHA-256')!, ha('sha256')),
    '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
  );
  assert.equal(digestResponseValue(digestAlgorithm('md5')!, ha('md5')), '8ca523f5e9506fed4657c9700eebdbec');
  const input = ha('md5');
  const sessionKey = digestHex('md5', `${input.ha1}:${input.nonce}:${input.cnonce}`);
  assert.equal(
    digestResponseValue(digestAlgorithm('MD5-sess')!, input),
    digestHex('md5', `${sessionKey}:${input.nonce}:00000001:${input.cnonce}:auth:${input.ha2}`),
  );
  assert.equal(
    digestResponseValue(digestAlgorithm('MD5')!, { ...input, nc: undefined }),
    digestHex('md5', `${input.ha1}:${input.nonce}:${input.ha2}`),
  );
});
