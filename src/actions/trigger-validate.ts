/**
 * The check of an action's value triggers (definition-validate.ts; docs/architecture.md#actions):
 * `when` (a quantity above or below a bound) and `cheapest` (the cheapest quarters of a window).
 */
import { QUANTITIES, templateName, type Quantity } from '../reading/quantities.js';
import { LIMITS } from './definition.js';
import { isDeclaredVariable } from './variables.js';
import { checkNumber, isObject, type Issues } from './validate-kit.js';

/** The quantity a `when.value` names: its live key (`P_Out`) or template name (`2_7_0`). */
export function quantityOf(name: string): Quantity | undefined {
  return QUANTITIES.find((quantity) => quantity.live === name || templateName(quantity.obis) === name);
}

/** A `when` trigger: a quantity or declared variable above or below a bound for a time. */
export function checkWhen(issues: Issues, field: string, when: unknown): void {
  if (!isObject(when)) return issues.add(field, 'must be an object {value, above|below, for}', when);
  issues.keys(field, when, ['value', 'above', 'below', 'for', 'meter']);
  if (
    when.meter !== undefined &&
    (typeof when.meter !== 'string' || !/^[a-z][a-z0-9_]{0,31}$/.test(when.meter))
  )
    issues.add(`${field}.meter`, 'must be a meter id: main or an id of meters', when.meter);
  if (typeof when.value !== 'string' || (!quantityOf(when.value) && !isDeclaredVariable(when.value)))
    issues.add(
      `${field}.value`,
      'must name a quantity (live key such as P_Out, template name such as 2_7_0, or peak.predicted_kw ...)',
      when.value,
    );
  if ((when.above === undefined) === (when.below === undefined))
    issues.add(field, 'must have exactly one of above, below');
  checkNumber(issues, `${field}.above`, when.above, -1e12, 1e12);
  checkNumber(issues, `${field}.below`, when.below, -1e12, 1e12);
  checkNumber(issues, `${field}.for`, when.for, 0, LIMITS.forSeconds);
}

const QUARTER_TIME = /^([01]\d|2[0-3]):(00|15|30|45)$/;

/** A `cheapest` trigger (docs/architecture.md#actions); `off` is checked against the ids later. */
export function checkCheapest(issues: Issues, field: string, cheapest: unknown): void {
  if (!isObject(cheapest)) return issues.add(field, 'must be an object {quarters, window, ...}', cheapest);
  issues.keys(field, cheapest, [
    'quarters',
    'window',
    'contiguous',
    'inverse',
    'price_limit',
    'failsafe_start',
    'off',
  ]);
  if (cheapest.quarters === undefined) issues.add(`${field}.quarters`, 'is required');
  checkNumber(issues, `${field}.quarters`, cheapest.quarters, 1, 96, true);
  const window = cheapest.window;
  const parts = typeof window === 'string' ? window.split('-') : [];
  if (parts.length !== 2 || !parts.every((part) => QUARTER_TIME.test(part)) || parts[0] === parts[1])
    issues.add(`${field}.window`, 'must be "HH:MM-HH:MM" on quarter hours, start and end different', window);
  for (const flag of ['contiguous', 'inverse'] as const)
    if (cheapest[flag] !== undefined && typeof cheapest[flag] !== 'boolean')
      issues.add(`${field}.${flag}`, 'must be a boolean', cheapest[flag]);
  checkNumber(issues, `${field}.price_limit`, cheapest.price_limit, -1000, 1000);
  if (
    cheapest.failsafe_start !== undefined &&
    (typeof cheapest.failsafe_start !== 'string' || !QUARTER_TIME.test(cheapest.failsafe_start))
  )
    issues.add(`${field}.failsafe_start`, 'must be "HH:MM" on a quarter hour', cheapest.failsafe_start);
  if (cheapest.off !== undefined && typeof cheapest.off !== 'string')
    issues.add(`${field}.off`, 'must be an action id', cheapest.off);
}
