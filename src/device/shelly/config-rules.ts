import { getPath } from '../../config/paths.js';
import { registerRules, type ConfigRule } from '../../config/rules.js';
import type { ValidationIssue } from '../../config/validation.js';
import { MAIN_METER_ID } from '../../reading/meter-entries.js';

const FIELD = 'services.emulate.shelly.meter';

/** The Shelly personality naming a meter the configuration does not have (main or an id of meters). */
function unknownMeter(tree: Readonly<Record<string, unknown>>): ValidationIssue[] {
  const meter = getPath(tree, FIELD);
  const meters = getPath(tree, 'meters');
  const ids = new Set([MAIN_METER_ID]);
  if (Array.isArray(meters)) for (const entry of meters) ids.add(String((entry as { id?: unknown }).id));
  if (typeof meter !== 'string' || ids.has(meter)) return [];
  return [
    { field: FIELD, message: `unknown meter "${meter}" (known: ${[...ids].join(', ')})`, value: meter },
  ];
}

const SHELLY_METER_RULE: ConfigRule = {
  name: 'shelly-meter',
  watches: [FIELD, 'meters'],
  check: unknownMeter,
};

const PORTS_FIELD = 'services.emulate.shelly.udp_ports';

/** Every port of `udp_ports` in 1..65535 (the format checks the shape: digits and commas). */
function badPorts(tree: Readonly<Record<string, unknown>>): ValidationIssue[] {
  const value = getPath(tree, PORTS_FIELD);
  if (typeof value !== 'string' || value === '') return [];
  const bad = value.split(',').filter((part) => !(Number(part) >= 1 && Number(part) <= 65535));
  if (bad.length === 0) return [];
  return [{ field: PORTS_FIELD, message: `not a UDP port (1..65535): ${bad.join(', ')}`, value }];
}

const SHELLY_PORTS_RULE: ConfigRule = {
  name: 'shelly-udp-ports',
  watches: [PORTS_FIELD],
  check: badPorts,
};

/** Registers the Shelly personality's rules; part of the config formats registered before loading. */
export function registerShellyRules(): void {
  registerRules([SHELLY_METER_RULE, SHELLY_PORTS_RULE]);
}
