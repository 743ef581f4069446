import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActionRunner } from '../../src/actions/runner.js';
import { parseChallenges } from '../../src/digest/auth-params.js';
import { componentLogger } from '../../src/log.js';
import { toCanonical } from '../../src/reading/units.js';
import { startHttpContext } from '../helpers/http-context.js';
import { recordingServer, startActionsRig } from './rig.js';

/**
 * Names that are special properties of every JavaScript object (`__proto__`, `constructor`,
 * `prototype`) are refused as action ids and constant names, and wherever an id or a name from
 * outside keys a table, the table is a Map or has own properties only (docs/architecture.md#actions).
 */

const RESERVED = ['__proto__', 'constructor', 'prototype'];

for (const id of RESERVED) {
  test(`an action id ${id} is refused with the field named, and nothing stored`, async () => {
    const rig = await startActionsRig();
    try {
      const answer = await rig.post({
        actions: [{ id, requests: [{ http: { url: 'http://127.0.0.1:9/' } }] }],
      });
      assert.equal(answer.status, 400);
      const body = (await answer.json()) as {
        error: string;
        details: { fields: Array<{ field: string; message: string }> };
      };
      assert.equal(body.error, 'validation_failed');
      assert.deepEqual(
        body.details.fields.map((issue) => [issue.field, issue.message]),
        [['actions[0].id', 'is a reserved name']],
      );
      assert.equal(rig.ctx.config.config.actions.definition, null);
      const constant = await rig.post({ const: JSON.parse(`{"${id}": 1}`) as Record<string, number> });
      assert.equal(constant.status, 400);
    } finally {
      await rig.close();
    }
  });
}

test('the runner counts actions whose ids are special property names (own properties, never the prototype)', async () => {
  const target = await recordingServer(200);
  const http = await startHttpContext();
  try {
    const runner = new ActionRunner(http.ctx, componentLogger(http.ctx.logger, 'actions'));
    // The runner is handed a definition without the API's check: its own tables must hold any id.
    runner.use(
      {
        actions: RESERVED.map((id) => ({
          id,
          requests: [{ http: { url: `${target.url}/${id}`, headers: { 'X-Id': id } } }],
        })),
      },
      true,
    );
    const runs: Promise<unknown>[] = [];
    for (const id of RESERVED) {
      const result = runner.call(id, 'test');
      assert.ok(result.ok, `${id} starts`);
      runs.push(result.done);
    }
    await Promise.all(runs);
    await runner.stop();
    const counters = runner.countersOf();
    assert.deepEqual(Object.keys(counters).sort(), [...RESERVED].sort());
    for (const id of RESERVED) {
      assert.ok(Object.hasOwn(counters, id));
      const { runs, ok, failed } = counters[id]!;
      assert.deepEqual({ runs, ok, failed }, { runs: 1, ok: 1, failed: 0 });
    }
    assert.equal(Object.getPrototypeOf(counters), Object.prototype);
    assert.deepEqual(
      Object.keys(JSON.parse(JSON.stringify(counters)) as object).sort(),
      [...RESERVED].sort(),
    );
    assert.deepEqual(
      target.requests.map((request) => request.url).sort(),
      RESERVED.map((id) => `/${id}`).sort(),
    );
  } finally {
    await http.close();
    await target.close();
  }
});

test('a meter unit named like an object property is kept as sent, not looked up on the prototype', () => {
  for (const unit of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    assert.deepEqual(toCanonical(1.5, unit), { value: 1.5, unit });
  }
  assert.deepEqual(toCanonical(1500, 'W'), { value: 1.5, unit: 'kW' });
});

test('auth-params named like object properties are plain names in a parsed challenge', () => {
  const [challenge] = parseChallenges('Digest __proto__="x", constructor="y", realm="r", nonce="n"');
  assert.equal(challenge!.params.realm, 'r');
  assert.equal(challenge!.params['__proto__'], 'x');
  assert.ok(Object.hasOwn(challenge!.params, '__proto__'));
  assert.equal(challenge!.params.constructor, 'y');
});
