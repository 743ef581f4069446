import { templateInputOf, type AppContext } from '../context.js';
import { compileTemplate } from '../reading/template.js';
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

/**
 * Any meter's variables (docs/architecture.md#several-meters): `meters.<id>.<name>` with every
 * template variable name of a reading (`meters.pv.2_7_0`, `meters.pv.power.out`, `meters.pv.meter.status`)
 * and the short names `power_in`, `power_out`, `energy_in`, `energy_out`. The primary keeps the
 * device's names and is also `meters.main.<name>`.
 */
const METER_VARIABLE = /^meters\.([a-z][a-z0-9_]{0,31})\.(.+)$/;
const SHORT_NAMES: ReadonlyArray<[string, string]> = [
  ['power_in', 'power.in'],
  ['power_out', 'power.out'],
  ['energy_in', 'energy.in'],
  ['energy_out', 'energy.out'],
];

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

/**
 * Variables a domain module adds to every run (the peak guard's `peak.*`): fixed names, declared
 * before the config loads so the definition check knows them (`declareVariables`), and values read
 * at the time of a run from the source the wiring gives the actions output (`addVariableSource`).
 */
export interface VariableSource {
  readonly names: readonly string[];
  values(): ReadonlyMap<string, TemplateValue>;
}

/** Names declared by domain modules: static, like the config formats and rules. */
const declaredNames = new Set<string>();

/** Name patterns declared by domain modules, for names that follow the settings (`peak.budget.<stage>.w`). */
const declaredPatterns: RegExp[] = [];

/** Declares variable names a source will give at run time (before the config loads). */
export function declareVariables(names: readonly string[], patterns: readonly RegExp[] = []): void {
  for (const name of names) declaredNames.add(name);
  for (const pattern of patterns)
    if (!declaredPatterns.some((known) => known.source === pattern.source)) declaredPatterns.push(pattern);
}

/** Whether a domain module declared `name` (a `when` may watch it). */
export function isDeclaredVariable(name: string): boolean {
  return declaredNames.has(name) || declaredPatterns.some((pattern) => pattern.test(name));
}

/** The number a source variable has now (a `when` on `peak.predicted_kw`), or undefined when no source names it. */
export function sourceNumber(
  sources: readonly VariableSource[],
  name: string,
): (() => number | undefined) | undefined {
  if (!isDeclaredVariable(name)) return undefined;
  return () => {
    const source =
      sources.find((candidate) => candidate.names.includes(name)) ??
      sources.find((candidate) => candidate.values().has(name));
    const value = source?.values().get(name);
    return typeof value === 'number' ? value : undefined;
  };
}

/** Placeholder names in `text` that are neither a constant nor a template variable. */
export function unknownVariables(text: string, constants: Readonly<Record<string, ConstValue>>): string[] {
  return compileTemplate(text).names.filter((name) => {
    if (name.startsWith('const.')) return !Object.hasOwn(constants, name.slice('const.'.length));
    if (Object.hasOwn(constants, name)) return false;
    if (isDeclaredVariable(name)) return false;
    const meter = METER_VARIABLE.exec(name);
    if (meter) return !TEMPLATE_NAMES.has(meter[2]!) && !SHORT_NAMES.some(([short]) => short === meter[2]);
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
  sources: readonly VariableSource[] = [],
): Map<string, TemplateValue> {
  const input = templateInputOf(ctx);
  const variables = buildTemplateVariables(input);
  for (const meter of ctx.meters.list()) {
    const own =
      meter.kind === 'primary'
        ? new Map(variables)
        : buildTemplateVariables({
            ...input,
            reading: meter.store.latest,
            meter: meter.store.meter,
            convFactor: undefined,
          });
    for (const [name, value] of own) {
      if (!name.startsWith('sys.') && !name.startsWith('wifi.'))
        variables.set(`meters.${meter.id}.${name}`, value);
    }
    for (const [short, long] of SHORT_NAMES)
      variables.set(`meters.${meter.id}.${short}`, own.get(long) ?? null);
  }
  for (const name of declaredNames) variables.set(name, null);
  for (const source of sources) for (const [name, value] of source.values()) variables.set(name, value);
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
