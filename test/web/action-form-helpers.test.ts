// The Actions form's DOM-free helpers (schedule presets, the code table in words), run in node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeCode } from '../../src/web/ui/action-result.js';
import { cronOf, presetOf } from '../../src/web/ui/schedule-presets.js';
import { actionsChoices } from '../../src/web/actions-choices.js';
import { CODE } from '../../src/actions/status-codes.js';

test('schedule presets round-trip through cron; anything else is a custom expression', () => {
  assert.equal(cronOf('daily', '07:30', '', ''), '30 7 * * *');
  assert.equal(cronOf('weekdays', '18:05', '', ''), '5 18 * * 1-5');
  assert.equal(cronOf('every', '', '15', ''), '*/15 * * * *');
  assert.equal(cronOf('custom', '', '', ' 0 0 1 * * '), '0 0 1 * *');
  assert.equal(cronOf('none', '07:30', '5', 'x'), undefined);
  assert.equal(cronOf('daily', '', '', ''), '', 'no time chosen: refused by the form');
  assert.deepEqual(presetOf('30 7 * * *'), { kind: 'daily', time: '07:30' });
  assert.deepEqual(presetOf('5 18 * * 1-5'), { kind: 'weekdays', time: '18:05' });
  assert.deepEqual(presetOf('*/15 * * * *'), { kind: 'every', minutes: 15 });
  assert.deepEqual(presetOf('0 0 1 * *'), { kind: 'custom' });
  assert.deepEqual(presetOf('0 75 * * *'), { kind: 'custom' });
  assert.deepEqual(presetOf(undefined), { kind: 'none' });
});

test('status codes in words follow the server code table, HTTP statuses by its success range', () => {
  const choices = actionsChoices();
  assert.deepEqual(describeCode(200, choices), { ok: true, text: 'HTTP status 200' });
  assert.deepEqual(describeCode(503, choices), { ok: false, text: 'HTTP status 503' });
  assert.deepEqual(describeCode(CODE.connection, choices), {
    ok: false,
    text: `connection refused or host unreachable (code ${CODE.connection})`,
  });
  assert.equal(describeCode(CODE.timeout, choices).ok, false);
  assert.deepEqual(choices.http_ok, [200, 299]);
  // Every named code of the table has words of its own.
  for (const entry of choices.status_codes)
    assert.doesNotMatch(describeCode(entry.code, choices).text, /^code /);
  // The limits the form checks are the definition's.
  assert.equal(choices.limits.idLength, 15);
  assert.ok(choices.quantities.some((q) => q.live === 'P_Out' && q.unit === 'kW' && q.name === '2_7_0'));
});
