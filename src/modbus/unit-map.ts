import {
  FormatError,
  jsonValueFormat,
  registerFormats,
  rejectProblems,
  type ConfigFormat,
} from '../config/formats.js';
import { getPath } from '../config/paths.js';
import { registerRules, type ConfigRule } from '../config/rules.js';
import type { ValidationIssue } from '../config/validation.js';
import { MAIN_METER_ID, METER_ID_PATTERN } from '../reading/meter-entries.js';

declare module '../config/formats.js' {
  interface FormatTypes {
    /** services.modbus.units: unit id (1..247, as a JSON key) or `*` (every other unit id) -> meter id. */
    'modbus-unit-map': Record<string, string>;
    /** A meter id: `main` or the id of an entry of `meters`. */
    'meter-id': string;
  }
}

/**
 * The key naming the meter of every unit id the map does not name. Without it an unnamed unit id
 * answers exception 0x0B (docs/architecture.md#modbus-unit-map).
 */
export const ANY_UNIT = '*';

/**
 * The default map: every unit id, 1 among them, reads the primary meter, as the device answers for
 * any address (its spec, Modbus TCP slave interface, 4). A map the admin sets replaces it whole,
 * so any map written without `*` (even `{"1": "main"}` alone) answers 0x0B for unmapped unit ids.
 */
export const DEFAULT_UNIT_MAP: Readonly<Record<string, string>> = { [ANY_UNIT]: MAIN_METER_ID };

/** Whether a map serves the primary, and only the primary, at every unit id (the device's behaviour). */
export function isPrimaryOnly(units: Readonly<Record<string, string>>): boolean {
  return units[ANY_UNIT] === MAIN_METER_ID && Object.values(units).every((id) => id === MAIN_METER_ID);
}

function unitMapProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return ['must be an object of unit id -> meter id'];
  const problems: string[] = [];
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) problems.push('must map at least one unit id');
  for (const [unit, meter] of entries) {
    const id = Number(unit);
    if (unit !== ANY_UNIT && (!/^\d{1,3}$/.test(unit) || id < 1 || id > 247))
      problems.push(`${unit}: a unit id must be 1..247, or * for every other unit id`);
    if (typeof meter !== 'string' || !METER_ID_PATTERN.test(meter))
      problems.push(`${unit}: must name a meter id (main or an id of meters)`);
  }
  return problems;
}

const UNIT_MAP = jsonValueFormat('modbus-unit-map', {
  check: (value) => rejectProblems(unitMapProblems(value), 'invalid-unit-map'),
  describe: 'object: unit id (1..247) or * -> meter id',
  jsonSchema: { type: 'object', additionalProperties: { type: 'string' } },
});

const METER_ID: ConfigFormat = {
  name: 'meter-id',
  validate(value) {
    if (typeof value !== 'string' || !METER_ID_PATTERN.test(value))
      throw new FormatError('not-meter-id', 'must be a meter id: main or an id of meters');
  },
  describe: () => 'meter id',
  jsonSchema: () => ({ type: 'string', pattern: METER_ID_PATTERN.source }),
};

/** The meter ids a configuration has: main and the ids of `meters`. */
function meterIds(tree: Readonly<Record<string, unknown>>): Set<string> {
  const meters = getPath(tree, 'meters');
  const ids = new Set([MAIN_METER_ID]);
  if (Array.isArray(meters)) for (const meter of meters) ids.add(String((meter as { id?: unknown }).id));
  return ids;
}

/** A unit map or the RTU slave naming a meter the configuration does not have. */
function unknownMeterIssues(tree: Readonly<Record<string, unknown>>): ValidationIssue[] {
  const ids = meterIds(tree);
  const issues: ValidationIssue[] = [];
  const units = getPath(tree, 'services.modbus.units');
  if (typeof units === 'object' && units !== null) {
    const unknown = Object.entries(units).filter(([, meter]) => !ids.has(String(meter)));
    if (unknown.length > 0)
      issues.push({
        field: 'services.modbus.units',
        message: `${unknown.map(([unit, meter]) => `unit ${unit} names unknown meter "${String(meter)}"`).join('; ')} (known: ${[...ids].join(', ')})`,
        value: units,
      });
  }
  const rtu = getPath(tree, 'services.modbus_rtu.meter');
  if (typeof rtu === 'string' && !ids.has(rtu))
    issues.push({
      field: 'services.modbus_rtu.meter',
      message: `unknown meter "${rtu}" (known: ${[...ids].join(', ')})`,
      value: rtu,
    });
  return issues;
}

/** The meters the unit map and the RTU slave name must exist (a rule over two sections). */
const UNIT_METERS_RULE: ConfigRule = {
  name: 'modbus-unit-meters',
  watches: ['services.modbus.units', 'services.modbus_rtu.meter', 'meters'],
  check: unknownMeterIssues,
};

/** Registers the unit map's formats and rule; part of the Modbus formats. */
export function registerUnitMapFormats(): void {
  registerFormats([UNIT_MAP, METER_ID]);
  registerRules([UNIT_METERS_RULE]);
}
