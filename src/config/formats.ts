import convict from 'convict';

/**
 * Strict convict formats: a value of the wrong JSON type is an error, never silently coerced
 * (convict's built-in int/port formats parseInt strings, which would accept "30.5" as 30).
 * Limits live on the schema item (min, max, maxLength, step, values) so the table in schema.ts
 * reads like the constraint column of the device's API documentation. A format rejects a value by throwing a FormatError;
 * the rule text is what a user sees: "<key>: <rule>: value was <value>".
 *
 * config/ defines the generic formats; a module that owns a kind of value (the Modbus register
 * layout, the meter source URI) registers its own format at wiring time, before the first load.
 */

/**
 * The TypeScript type of a value of each format, so the config type follows from the schema
 * (types.ts). A module registering a format adds its entry by declaration merging:
 * `declare module '../config/formats.js' { interface FormatTypes { 'my-format': MyType } }`.
 */
export interface FormatTypes {
  'bounded-int': number;
  'bounded-number': number;
  bool: boolean;
  text: string;
  'one-of': string;
}

/** The limits a schema item may carry next to its format. */
export interface Limits {
  min?: number;
  max?: number;
  step?: number;
  maxLength?: number;
  minLength?: number;
  values?: readonly string[];
  pattern?: RegExp;
  patternText?: string;
}

/**
 * A rejected value: `reason` is a stable key for code (e.g. 'out-of-range'), `message` the rule a
 * user reads. `shownValue` replaces the value in reports when the value itself must not be echoed
 * whole (a URI with a password); `summary`, when set, is the owner's own wording of the whole
 * problem for a start-up error.
 */
export class FormatError extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly details: {
      shownValue?: unknown;
      summary?: string;
      /** Problems inside a structured value, each naming its field below the leaf (`actions[0].id`). */
      parts?: readonly { field: string; message: string; value?: unknown }[];
      /** The rule's message key and arguments (docs/architecture.md#server-message-keys). */
      key?: string;
      args?: Record<string, string | number>;
    } = {},
  ) {
    super(message);
    this.name = 'FormatError';
  }
}

export interface ConfigFormat {
  name: string;
  /** Throws a FormatError when `value` breaks the rule of the schema item. */
  validate(value: unknown, item: Limits): void;
  /** The rule as the configuration reference shows it. */
  describe(item: Limits): string;
  /** Turns a METER_GATEWAY_* text into the value to validate; unparseable text stays text. */
  fromEnv?(text: string): unknown;
  /** The JSON Schema keywords of a value (the API description of a settings field). */
  jsonSchema?(item: Limits): Record<string, unknown>;
}

const registry = new Map<string, ConfigFormat>();

/** What `rejectIssues` says of a structured value's problems. */
export interface IssueRule {
  /** The FormatError reason. */
  reason: string;
  /** The rule, the message's start ("must be a list of {obis, scaler}"). */
  must: string;
  /** The name of an issue of the whole value (its field is empty). */
  whole: string;
  /** The issues also go into the error's `parts`, each naming its field. */
  withParts?: boolean;
}

/** Throws the FormatError "must ...: field: message; ..." when `issues` is not empty. */
export function rejectIssues(
  issues: readonly { field: string; message: string; value?: unknown }[],
  rule: IssueRule,
): void {
  if (issues.length === 0) return;
  const text = issues.map((issue) => `${issue.field || rule.whole}: ${issue.message}`).join('; ');
  throw new FormatError(rule.reason, `${rule.must}: ${text}`, rule.withParts ? { parts: issues } : {});
}

/**
 * `fromEnv` of a format whose value is JSON (a list or an object): the text parsed, or the text
 * itself when it is not JSON, so that `validate` names what is wrong with it.
 */
export function jsonFromEnv(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Throws the FormatError `reason` whose message is the problems joined by "; ", when there are any. */
export function rejectProblems(problems: readonly string[], reason: string): void {
  if (problems.length > 0) throw new FormatError(reason, problems.join('; '));
}

/** What a format whose value is JSON checks and how the reference and the API describe it. */
export interface JsonValueRule {
  /** Throws a FormatError naming what is wrong with the value (rejectIssues, rejectProblems). */
  check(value: unknown): void;
  describe: string;
  /** The value's JSON Schema in the API description. */
  jsonSchema?: Record<string, unknown>;
}

/** A format whose value is JSON (a list or an object), from the environment as JSON text. */
export function jsonValueFormat(name: string, rule: JsonValueRule): ConfigFormat {
  const { check, describe, jsonSchema } = rule;
  const format: ConfigFormat = { name, validate: check, describe: () => describe, fromEnv: jsonFromEnv };
  if (jsonSchema) format.jsonSchema = () => jsonSchema;
  return format;
}

/** Registers formats with the schema checker and convict; the same format twice is a no-op. */
export function registerFormats(formats: readonly ConfigFormat[]): void {
  for (const format of formats) {
    const known = registry.get(format.name);
    if (known === format) continue;
    if (known) throw new Error(`config format ${format.name} is registered twice`);
    registry.set(format.name, format);
    convict.addFormat({
      name: format.name,
      // convict passes the leaf's schema item, which carries the leaf's limits (schema.ts).
      validate: (value: unknown, item: convict.SchemaObj & Limits) => format.validate(value, item),
    });
  }
}

/** The registered format, or undefined while its owner has not registered it. */
export function formatNamed(name: string): ConfigFormat | undefined {
  return registry.get(name);
}

function range(limits: Limits): string {
  return `${limits.min ?? '-inf'}..${limits.max ?? 'inf'}`;
}

function outsideRange(value: number, limits: Limits): boolean {
  return (limits.min !== undefined && value < limits.min) || (limits.max !== undefined && value > limits.max);
}

function numberFromEnv(text: string): unknown {
  return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
}

/** The message key of a rule over a range, its bounds as arguments ('-inf' and 'inf' for none). */
function rangeKey(key: string, limits: Limits, more: Record<string, number> = {}) {
  return { key, args: { min: limits.min ?? '-inf', max: limits.max ?? 'inf', ...more } };
}

const boundedInt: ConfigFormat = {
  name: 'bounded-int',
  validate(value, item) {
    const rule = `must be an integer in ${range(item)}`;
    const key = rangeKey('rule.integer_range', item);
    if (typeof value !== 'number' || !Number.isInteger(value))
      throw new FormatError('not-integer', rule, key);
    if (outsideRange(value, item)) throw new FormatError('out-of-range', rule, key);
  },
  describe: (item) => `integer ${String(item.min)}..${String(item.max)}`,
  fromEnv: numberFromEnv,
  jsonSchema: (item) => ({ type: 'integer', minimum: item.min, maximum: item.max }),
};

const boundedNumber: ConfigFormat = {
  name: 'bounded-number',
  validate(value, item) {
    const rule = `must be a number in ${range(item)}${item.step ? ` in steps of ${item.step}` : ''}`;
    const key = item.step
      ? rangeKey('rule.number_range_step', item, { step: item.step })
      : rangeKey('rule.number_range', item);
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new FormatError('not-number', rule, key);
    if (outsideRange(value, item)) throw new FormatError('out-of-range', rule, key);
    if (item.step && Math.abs(value / item.step - Math.round(value / item.step)) > 1e-9) {
      throw new FormatError('off-step', rule, key);
    }
  },
  describe: (item) =>
    `number ${String(item.min)}..${String(item.max)}${item.step ? `, step ${String(item.step)}` : ''}`,
  fromEnv: numberFromEnv,
  jsonSchema: (item) => ({
    type: 'number',
    minimum: item.min,
    maximum: item.max,
    ...(item.step ? { multipleOf: item.step } : {}),
  }),
};

const bool: ConfigFormat = {
  name: 'bool',
  validate(value) {
    if (typeof value !== 'boolean')
      throw new FormatError('not-boolean', 'must be true or false', { key: 'rule.boolean', args: {} });
  },
  describe: () => 'boolean',
  jsonSchema: () => ({ type: 'boolean' }),
  fromEnv: (text) => (text === 'true' ? true : text === 'false' ? false : text),
};

const text: ConfigFormat = {
  name: 'text',
  validate(value, item) {
    const max = item.maxLength;
    const lengthRule =
      item.minLength !== undefined && max !== undefined
        ? ` of ${item.minLength}..${max} characters`
        : max !== undefined
          ? ` of at most ${max} characters`
          : '';
    const rule = `must be a string${lengthRule}`;
    const key: { key: string; args: Record<string, number> } =
      item.minLength !== undefined && max !== undefined
        ? { key: 'rule.string_length', args: { min: item.minLength, max } }
        : max !== undefined
          ? { key: 'rule.string_max', args: { max } }
          : { key: 'rule.string', args: {} };
    if (typeof value !== 'string') throw new FormatError('not-string', rule, key);
    if (max !== undefined && [...value].length > max) throw new FormatError('too-long', rule, key);
    if (item.minLength !== undefined && value.length > 0 && value.length < item.minLength) {
      throw new FormatError('too-short', rule, key);
    }
    if (item.pattern && value !== '' && !item.pattern.test(value)) {
      throw new FormatError('pattern', `must be ${item.patternText ?? `a string matching ${item.pattern}`}`);
    }
  },
  describe: describeString,
  jsonSchema: stringSchema,
};

/** Reference text and JSON Schema of a string of at most `maxLength` characters. */
export function describeString(item: Limits): string {
  return `string${item.maxLength === undefined ? '' : `, max ${String(item.maxLength)}`}`;
}

export function stringSchema(item: Limits): Record<string, unknown> {
  return { type: 'string', ...(item.maxLength !== undefined ? { maxLength: item.maxLength } : {}) };
}

/** A choice among names; `values` in the reference joined for a Markdown table cell. */
export function choiceFormat(name: string, valuesOf: (item: Limits) => readonly string[]): ConfigFormat {
  return {
    name,
    validate(value, item) {
      const values = valuesOf(item);
      if (typeof value !== 'string' || !values.includes(value)) {
        throw new FormatError('not-a-choice', `must be one of ${values.join(', ')}`, {
          key: 'rule.one_of',
          args: { values: values.join(', ') },
        });
      }
    },
    describe: (item) => valuesOf(item).join(' \\| '),
    jsonSchema: (item) => ({ type: 'string', enum: valuesOf(item) }),
  };
}

const GENERIC_FORMATS: readonly ConfigFormat[] = [
  boundedInt,
  boundedNumber,
  bool,
  text,
  choiceFormat('one-of', (item) => item.values ?? []),
];

registerFormats(GENERIC_FORMATS);
