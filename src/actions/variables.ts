import { templateInputOf, type AppContext } from '../context.js';
import { compileTemplate } from '../mqtt/template.js';
import { buildTemplateVariables, type TemplateValue } from '../reading/template-variables.js';
import type { ConstValue } from './definition.js';

/**
 * Constants and the MQTT template variables in an action's url, headers, payload and Modbus host
 * and value, by the MQTT template's own rules (docs/architecture.md#mqtt-template): same
 * placeholder syntax, same rendering (numbers as JSON numbers, strings verbatim, null as `null`).
 * A constant is `${NAME}` (the device's own form, whatwatt Go documentation "Actions Definition")
 * and `${const.NAME}`; where a constant and a template variable share a name, `${NAME}` is the
 * constant (the definition's own name is the nearer one). A boolean constant renders as `true` / `false`.
 */

/** Variables whose names are only known at run time: wifi facts and M-Bus channels. */
const DYNAMIC_NAMES = [/^wifi\.[A-Za-z0-9_.]+$/, /^vol\[\d+\]\.(bus|meter_id|date_time|cumulative)$/];

/** Every template variable a reading can give (the names of an empty reading's variables). */
const TEMPLATE_NAMES: ReadonlySet<string> = new Set(
  buildTemplateVariables({
    reading: undefined,
    meter: { status: 'NO DATA', interface: 'SIMULATOR', identity: {} },
    system: { id: '', model: '', firmware: '', bootId: '', bootTime: 0 },
    systemName: '',
    convFactor: undefined,
    wifi: {},
    now: 0,
  }).keys(),
);

/** Placeholder names in `text` that are neither a constant nor a template variable. */
export function unknownVariables(text: string, constants: Readonly<Record<string, ConstValue>>): string[] {
  return compileTemplate(text).names.filter((name) => {
    if (name.startsWith('const.')) return !Object.hasOwn(constants, name.slice('const.'.length));
    if (Object.hasOwn(constants, name)) return false;
    return !TEMPLATE_NAMES.has(name) && !DYNAMIC_NAMES.some((pattern) => pattern.test(name));
  });
}

function constValue(value: ConstValue): TemplateValue {
  return typeof value === 'boolean' ? String(value) : value;
}

/** The variables of one run: the reading's template variables plus the constants. */
export function runVariables(
  ctx: AppContext,
  constants: Readonly<Record<string, ConstValue>>,
): Map<string, TemplateValue> {
  const variables = buildTemplateVariables(templateInputOf(ctx));
  for (const [name, value] of Object.entries(constants)) {
    variables.set(`const.${name}`, constValue(value));
    variables.set(name, constValue(value));
  }
  return variables;
}

/** Renders one text with the run's variables. */
export function substitute(text: string, variables: ReadonlyMap<string, TemplateValue>): string {
  return compileTemplate(text).render(variables);
}
