// The Actions form's DOM-free helpers (schedule presets, the code table in words), run in node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeCode, describeRun } from '../../src/web/ui/action-result.js';
import { actionIssues } from '../../src/web/ui/action-checks.js';
import { formatMoney } from '../../src/web/ui/format.js';
import { quantityName } from '../../src/web/ui/quantity-names.js';
import { useLanguage } from '../../src/web/ui/i18n/i18n.js';
import { en } from '../../src/web/ui/i18n/en/index.js';
import { de } from '../../src/web/ui/i18n/de/index.js';
import { fr } from '../../src/web/ui/i18n/fr/index.js';
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

test('in another language the run result, the checks, the quantity names and money are translated', () => {
  const choices = actionsChoices();
  useLanguage('fr', fr, 'fr-BE');
  try {
    assert.deepEqual(
      describeRun({ id: 1, action_id: 'plug', code: 200, exe_time: 0.0123 } as never, choices),
      {
        ok: true,
        text: 'Réussi — statut HTTP 200 en 0,012 s',
      },
    );
    const issues = actionIssues({ id: '', enable: true, min_interval: 1e9 }, 0, choices);
    assert.deepEqual(
      issues.map((issue) => issue.message),
      ['est obligatoire', `doit être entre 0 et ${choices.limits.minIntervalSeconds}`],
    );
    assert.equal(quantityName('Active power import L2'), 'Puissance active prélevée L2');
    assert.equal(quantityName('Energy export T1'), 'Énergie injectée T1');
    assert.equal(quantityName('Something new'), 'Something new');
    assert.match(formatMoney(1.25, 'EUR'), /^1,25\s€$/);
    assert.match(formatMoney(1.25, 'XYZ1'), /^1,25 XYZ1$/);
  } finally {
    useLanguage('en', en);
  }
  assert.match(formatMoney(1.25, 'CHF'), /^CHF\s1\.25$/);
  // Every quantity the server's table names has a German name.
  useLanguage('de', de, 'de-DE');
  try {
    for (const quantity of choices.quantities)
      assert.notEqual(quantityName(quantity.label), quantity.label, quantity.label);
  } finally {
    useLanguage('en', en);
  }
});
