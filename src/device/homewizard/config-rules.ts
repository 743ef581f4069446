import { getPath } from '../../config/paths.js';
import { registerRules } from '../../config/rules.js';
import type { ValidationIssue } from '../../config/validation.js';

const FIELD = 'services.emulate.homewizard.meter';

/** The meter ids a configuration has: main and the ids of `meters` (docs/architecture.md#several-meters). */
function meterIds(tree: Readonly<Record<string, unknown>>): string[] {
  const meters = getPath(tree, 'meters');
  const ids = ['main'];
  if (Array.isArray(meters)) for (const meter of meters) ids.push(String((meter as { id?: unknown }).id));
  return ids;
}

/** The HomeWizard personality naming a meter the configuration does not have. */
function unknownMeterIssues(tree: Record<string, unknown>): ValidationIssue[] {
  const meter = getPath(tree, FIELD);
  const ids = meterIds(tree);
  if (typeof meter !== 'string' || ids.includes(meter)) return [];
  return [{ field: FIELD, message: `unknown meter "${meter}" (known: ${ids.join(', ')})`, value: meter }];
}

const RULE = { name: 'homewizard-meter', watches: [FIELD, 'meters'], check: unknownMeterIssues };

/** Registers the rule of services.emulate.homewizard (docs/architecture.md#homewizard-personality). */
export function registerHomewizardRules(): void {
  registerRules([RULE]);
}
