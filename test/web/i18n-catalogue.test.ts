// The catalogues as data: every language has exactly the English keys, the same placeholders and no
// empty text; every key the static page names exists; language choice and locale rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/environment.js';
import { en } from '../../src/web/ui/i18n/en/index.js';
import { de } from '../../src/web/ui/i18n/de/index.js';
import { fr } from '../../src/web/ui/i18n/fr/index.js';
import { nl } from '../../src/web/ui/i18n/nl/index.js';
import { chooseLanguage, localeOf, t as translate, useLanguage } from '../../src/web/ui/i18n/i18n.js';
import { formatNumber, formatSigned } from '../../src/web/ui/format.js';

const OTHERS = { de, fr, nl } as Record<string, Record<string, string>>;
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

test('German, French and Dutch have exactly the English keys, no empty text, the same placeholders', () => {
  const keys = Object.keys(en).sort();
  assert.ok(keys.length > 300, `${keys.length} keys`);
  for (const [language, catalogue] of Object.entries(OTHERS)) {
    assert.deepEqual(Object.keys(catalogue).sort(), keys, `${language}: keys differ from English`);
    for (const key of keys) {
      const text = catalogue[key]!;
      assert.ok(text.trim().length > 0, `${language} ${key} is empty`);
      assert.deepEqual(placeholders(text), placeholders(en[key as keyof typeof en]), `${language} ${key}`);
    }
  }
});

test('every data-i18n key of the static page is in the catalogue, and its English text is the page text', () => {
  const html = readFileSync(join(repoRoot, 'src', 'web', 'ui', 'index.html'), 'utf8');
  const named = [...html.matchAll(/data-i18n(?:-[a-z-]+)?="([^"]+)"/g)].map((match) => match[1]!);
  assert.ok(named.length > 150, `${named.length} data-i18n attributes`);
  for (const key of named) assert.ok(key in en, `${key} is not in the catalogue`);
  // The English page works before the script runs: the text in the HTML is the catalogue's.
  for (const match of html.matchAll(/data-i18n="([^"]+)"[^>]*>([^<]*)</g)) {
    const text = match[2]!.replace(/\s+/g, ' ').trim().replaceAll('&lt;', '<').replaceAll('&gt;', '>');
    assert.equal(text, en[match[1] as keyof typeof en], match[1]);
  }
});

test('the stored choice wins, else the first browser language the page speaks, else English', () => {
  assert.equal(chooseLanguage('nl', ['de-CH', 'en']), 'nl');
  assert.equal(chooseLanguage(null, ['it-CH', 'de-CH', 'fr']), 'de');
  assert.equal(chooseLanguage('xx', ['FR-be']), 'fr');
  assert.equal(chooseLanguage(null, ['it', 'es']), 'en');
  assert.equal(localeOf('de', ['it-CH', 'de-CH']), 'de-CH');
  assert.equal(localeOf('nl', ['de-CH']), 'nl');
});

test('t fills placeholders in the chosen language; numbers take its decimal sign, never "-0"', () => {
  useLanguage('fr', fr, 'fr-BE');
  try {
    assert.equal(translate('files.confirm_delete', { name: 'a.csv' }), 'Supprimer a.csv ?');
    assert.equal(formatNumber(1234.5678, 3), '1234,568');
    assert.equal(formatSigned(0.25, 3), '+0,250');
    assert.equal(formatNumber(-0.0004, 3), '0,000');
  } finally {
    useLanguage('en', en);
  }
  assert.equal(formatNumber(1234.5678, 3), '1234.568');
  assert.equal(formatNumber(0.5, 1, 'de-CH'), '0.5');
  assert.equal(translate('dashboard.meter_status', { status: 'OK' }), 'Meter status OK.');
});
