import { FormatError, type ConfigFormat } from '../config/formats.js';
import { getPath } from '../config/paths.js';
import type { ConfigRule } from '../config/rules.js';
import type { ValidationIssue } from '../config/validation.js';
import type { PriceStep } from './engine-types.js';

declare module '../config/formats.js' {
  interface FormatTypes {
    /** services.peak_guard.steps (tariff-model.ts). */
    'peak-steps': PriceStep[];
    /** services.peak_guard.filter.months. */
    'peak-months': number[];
  }
}

/**
 * The formats of the tariff models' settings (docs/architecture.md#peak-guard-models): Norway's
 * price steps (1..20 steps, bounds strictly increasing, prices not negative) and the months of
 * the Swedish filter (distinct 1..12), and the rule that the filter's hours are a non-empty span.
 */

interface Part {
  field: string;
  message: string;
  value?: unknown;
}

const MAX_STEPS = 20;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function stepParts(step: unknown, index: number, previous: number): Part[] {
  const at = `[${index}]`;
  if (!isObject(step)) return [{ field: at, message: 'must be an object {to_kw, price}' }];
  const parts: Part[] = [];
  for (const key of Object.keys(step))
    if (key !== 'to_kw' && key !== 'price') parts.push({ field: `${at}.${key}`, message: 'unknown key' });
  const bound = step.to_kw;
  if (!finite(bound) || bound <= 0 || bound > 10_000)
    parts.push({ field: `${at}.to_kw`, message: 'must be a number in (0, 10000]', value: bound });
  else if (bound <= previous)
    parts.push({
      field: `${at}.to_kw`,
      message: `must be above the previous step's bound ${previous} (steps increase)`,
      value: bound,
    });
  if (!finite(step.price) || step.price < 0 || step.price > 1_000_000)
    parts.push({ field: `${at}.price`, message: 'must be a number in 0..1000000', value: step.price });
  return parts;
}

export function stepsProblems(value: unknown): Part[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_STEPS)
    return [{ field: '', message: `must be a list of 1..${MAX_STEPS} steps {to_kw, price}` }];
  return value.flatMap((step, index) => {
    const previous = index === 0 ? 0 : (value[index - 1] as { to_kw?: unknown }).to_kw;
    return stepParts(step, index, finite(previous) ? previous : -Infinity);
  });
}

export function monthsProblems(value: unknown): Part[] {
  if (!Array.isArray(value)) return [{ field: '', message: 'must be a list of months 1..12' }];
  const parts: Part[] = [];
  value.forEach((month, index) => {
    if (!Number.isInteger(month) || (month as number) < 1 || (month as number) > 12)
      parts.push({ field: `[${index}]`, message: 'must be a month 1..12', value: month });
    else if (value.indexOf(month) !== index)
      parts.push({ field: `[${index}]`, message: `month ${month} is listed twice`, value: month });
  });
  return parts;
}

const fromJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

function listFormat(name: string, reason: string, problems: (value: unknown) => Part[], text: string) {
  const format: ConfigFormat = {
    name,
    validate(value) {
      const parts = problems(value);
      if (parts.length > 0)
        throw new FormatError(reason, parts.map((part) => `${part.field}: ${part.message}`).join('; '), {
          parts,
        });
    },
    describe: () => text,
    jsonSchema: () => ({ type: 'array' }),
    fromEnv: fromJson,
  };
  return format;
}

export const MODEL_FORMATS: ConfigFormat[] = [
  listFormat('peak-steps', 'invalid-steps', stepsProblems, 'list of {to_kw, price}, to_kw increasing'),
  listFormat('peak-months', 'invalid-months', monthsProblems, 'list of distinct months 1..12'),
];

const FILTER = 'services.peak_guard.filter';

function filterIssues(tree: Record<string, unknown>): ValidationIssue[] {
  const from = getPath(tree, `${FILTER}.hours_from`) as number;
  const to = getPath(tree, `${FILTER}.hours_to`) as number;
  if (from < to) return [];
  return [
    {
      field: `${FILTER}.hours_to`,
      message: `must be after hours_from (${from}): the local hours [from, to) whose windows count`,
      value: to,
    },
  ];
}

export const MODEL_RULES: ConfigRule[] = [
  {
    name: 'peak-guard filter hours',
    watches: [`${FILTER}.hours_from`, `${FILTER}.hours_to`],
    check: filterIssues,
  },
];
