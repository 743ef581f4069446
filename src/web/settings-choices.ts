import { contract } from '../http/contract-ref.js';
import { formatNamed, type Limits } from '../config/formats.js';
import { SCHEMA } from '../config/schema.js';
import type { Router } from '../http/router.js';
import { sendJson } from '../http/respond.js';
import { PROFILE_TITLES } from '../modbus-protocol/profiles/catalogue.js';
import type { SettingChoice, SettingsChoices } from '../contracts/page.js';

export const CHOICES_PATH = '/api/v1/settings/choices';

/** The parts of the schema the settings endpoints read and write (not the daemon's own keys). */
const SETTINGS_SECTIONS = ['system', 'services', 'wifi', 'mqtt', 'modbus', 'meter'] as const;

/** Labels beyond the value itself; other values are shown with spaces for underscores. */
const TITLES: Readonly<Record<string, string>> = PROFILE_TITLES;

function choiceOf(value: string): SettingChoice {
  return { value, label: TITLES[value] ?? value.replaceAll('_', ' ') };
}

/**
 * The values a leaf accepts when its format is a fixed list: the schema's own `one-of` values, or
 * the enum of a format an output registered (the Modbus profile, the power direction).
 */
function valuesOf(node: Record<string, unknown>): readonly string[] | undefined {
  if (typeof node.format !== 'string') return undefined;
  const schema = formatNamed(node.format)?.jsonSchema?.(node as Limits);
  const values = schema?.enum;
  return Array.isArray(values) && values.every((value) => typeof value === 'string') ? values : undefined;
}

function collect(node: unknown, path: string, into: SettingsChoices): void {
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  const values = valuesOf(record);
  if (values) {
    into[path] = values.map(choiceOf);
    return;
  }
  if ('format' in record && 'default' in record) return; // another kind of setting
  for (const [key, child] of Object.entries(record)) collect(child, `${path}.${key}`, into);
}

/** Every setting of a fixed list of values (the schema's one-of format), read from the one schema. */
export function settingsChoices(): SettingsChoices {
  const choices: SettingsChoices = {};
  for (const section of SETTINGS_SECTIONS) collect(SCHEMA[section], section, choices);
  return choices;
}

/** GET /api/v1/settings/choices: the choice lists the settings page offers, from the schema. */
export function registerChoicesRoute(router: Router): void {
  const choices = settingsChoices();
  router.add('GET', CHOICES_PATH, (_request, response) => sendJson(response, 200, choices), {
    doc: {
      summary: 'The values each fixed-list setting accepts, by dotted config path, with labels',
      responses: { 200: { description: 'choice lists', schema: contract('SettingsChoicesSchema') } },
    },
  });
}
