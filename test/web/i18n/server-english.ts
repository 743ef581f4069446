import { server } from '../../../src/web/ui/i18n/en/server.js';
import { en } from '../../../src/web/ui/i18n/en/index.js';
import type { Messages, MessageKey } from '../../../src/web/ui/i18n/i18n.js';
import type { Finding } from './english-left.js';

/**
 * The server's own English that a translated page must not show (docs/architecture.md#server-message-keys):
 * every text the server sends beside a message key (the catalogue part server.ts: service reasons,
 * source descriptions, the primary's name, register names and types, rules), the quantity names of
 * the Modbus table, and the raw type tokens of the layout. Looked for inside every visible text, the
 * ones marked translate="no" included (a status line joins its parts), the log lines excepted.
 */
const QUANTITY_KEYS = (Object.keys(en) as MessageKey[]).filter((key) => key.startsWith('quantity.'));
const SERVER_KEYS = [...(Object.keys(server) as MessageKey[]), ...QUANTITY_KEYS];

/** The layout's type tokens as the table showed them before it translated them. */
const RAW_TYPES = new Set(['double', 'float', 'long', 'int', 'short', 'padding']);

function patternOf(english: string): RegExp {
  const parts = english.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  // A whole-word match: "Current" in a text, not inside another word.
  return new RegExp(`(^|[^\\p{L}])${parts.join('.+?')}($|[^\\p{L}])`, 'u');
}

export function serverEnglish(texts: readonly string[], catalogue: Messages): Finding[] {
  const checks = SERVER_KEYS.filter((key) => catalogue[key] !== en[key]).map((key) => ({
    key,
    pattern: patternOf(en[key]),
  }));
  const findings: Finding[] = [];
  for (const text of texts) {
    if (RAW_TYPES.has(text)) findings.push({ text, why: 'a register type token of the layout' });
    const hit = checks.find((check) => check.pattern.test(text));
    if (hit) findings.push({ text, why: `the server's English of ${hit.key}` });
  }
  return findings;
}
