import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MeterDataError } from '../../../src/meter/decoder.js';
import { createDsmrDecoder } from '../../../src/meter/dsmr/decoder.js';
import {
  SmartyFramer,
  decryptSmartyFrame,
  parseSmartyFrame,
  withDsmrEncryption,
} from '../../../src/meter/dsmr/encryption.js';
import { corpusDir, requireCorpus } from '../../helpers/environment.js';
import { SMARTY_SYSTEM_TITLE, encryptSmarty } from './smarty-cipher.js';

const KEY = '000102030405060708090A0B0C0D0E0F';
const OTHER_KEY = 'F0E0D0C0B0A090807060504030201000';

function smartyTelegram(): Buffer {
  return readFileSync(join(corpusDir, 'dsmr', 'meterlogger_luxembourg_smarty.txt'));
}

test('decryptSmartyFrame returns the plain telegram of a frame encrypted with the same key', (t) => {
  if (!requireCorpus(t)) return;
  const plain = smartyTelegram();
  const frame = encryptSmarty(plain, KEY, 0x0001_0203);
  const parts = parseSmartyFrame(frame);
  assert.equal(parts.frameCounter, 0x0001_0203);
  assert.deepEqual(parts.systemTitle, SMARTY_SYSTEM_TITLE);
  assert.deepEqual(decryptSmartyFrame(frame, KEY), plain);
  assert.deepEqual(decryptSmartyFrame(frame, KEY.toLowerCase()), plain);
});

test('a wrong, missing or malformed key is an encryption error; a damaged APDU a parse error', (t) => {
  if (!requireCorpus(t)) return;
  const frame = encryptSmarty(smartyTelegram(), KEY, 7);
  const kindOf = (run: () => unknown): string => {
    try {
      run();
    } catch (error) {
      assert.ok(error instanceof MeterDataError);
      return error.kind;
    }
    return 'no error';
  };
  assert.equal(
    kindOf(() => decryptSmartyFrame(frame, OTHER_KEY)),
    'encryption',
  );
  assert.equal(
    kindOf(() => decryptSmartyFrame(frame, '')),
    'encryption',
  );
  assert.equal(
    kindOf(() => decryptSmartyFrame(frame, 'xyz')),
    'encryption',
  );
  const altered = Buffer.from(frame);
  altered[40]! ^= 0x01;
  assert.equal(
    kindOf(() => decryptSmartyFrame(altered, KEY)),
    'encryption',
  );
  assert.equal(
    kindOf(() => decryptSmartyFrame(frame.subarray(0, frame.length - 1), KEY)),
    'parse',
  );
  const otherSecurity = Buffer.from(frame);
  otherSecurity[13] = 0x20;
  assert.equal(
    kindOf(() => decryptSmartyFrame(otherSecurity, KEY)),
    'parse',
  );
});

test('the framer finds APDUs between garbage bytes at every chunk split point', (t) => {
  if (!requireCorpus(t)) return;
  const first = encryptSmarty(smartyTelegram(), KEY, 1);
  const second = encryptSmarty(smartyTelegram(), KEY, 2);
  const stream = Buffer.concat([Buffer.from([0xdb, 0x00, 0x41, 0xdb]), first, Buffer.from('noise'), second]);
  for (let split = 0; split <= stream.length; split += 7) {
    const framer = new SmartyFramer();
    const frames = [...framer.push(stream.subarray(0, split)), ...framer.push(stream.subarray(split))];
    assert.deepEqual(frames, [first, second], `split at ${split}`);
  }
});

test('the DSMR decoder wrapped with the key yields readings from encrypted telegrams', (t) => {
  if (!requireCorpus(t)) return;
  const stream = Buffer.concat([
    encryptSmarty(smartyTelegram(), KEY, 1),
    encryptSmarty(smartyTelegram(), KEY, 2),
  ]);
  const decoder = withDsmrEncryption(createDsmrDecoder(), KEY);
  const results = [...decoder.push(stream.subarray(0, 500), 0), ...decoder.push(stream.subarray(500), 0)];
  assert.equal(results.length, 2);
  for (const result of results) {
    assert.ok(result.ok);
    assert.equal(result.reading.values.get('1.8.0')?.value, 273.764);
    assert.equal(result.reading.identity.logicalName, 'SAG1030700012701');
  }
});

test('without a key or with the wrong one, encrypted telegrams become encryption rejections', (t) => {
  if (!requireCorpus(t)) return;
  const frame = encryptSmarty(smartyTelegram(), KEY, 9);
  for (const key of [undefined, OTHER_KEY]) {
    const results = withDsmrEncryption(createDsmrDecoder(), key).push(frame, 0);
    assert.equal(results.length, 1);
    const [result] = results;
    assert.ok(result && !result.ok);
    assert.equal(result.error.kind, 'encryption');
    assert.equal(result.error.details.reason, key ? 'wrong key' : 'key required');
  }
});

test('plain telegrams pass through the wrapper unchanged, with or without a key', (t) => {
  if (!requireCorpus(t)) return;
  const telegram = readFileSync(join(corpusDir, 'dsmr', 'ndokter_v5.txt'));
  for (const key of [undefined, KEY]) {
    const decoder = withDsmrEncryption(createDsmrDecoder(), key);
    const results = [...decoder.push(telegram, 0), ...decoder.push(telegram, 0)];
    assert.equal(results.length, 2);
    assert.ok(results.every((result) => result.ok && result.reading.values.get('1.8.1')?.value === 4.426));
  }
});
