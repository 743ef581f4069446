import type { PeakStage } from '../contracts/peak.js';

/**
 * The stages of the peak guard (docs/architecture.md#peak-guard): each one an action that sheds a
 * load, an action that restores it, the relief it is expected to give and the actions whose
 * triggers it locks while shed. Shape checks here; the checks against the actions definition are
 * the config rule in config-rules.ts.
 */

export type { PeakStage };

export interface StageProblem {
  field: string;
  message: string;
  value?: unknown;
}

export const MAX_STAGES = 16;
const ID = /^[A-Za-z0-9_-]{1,15}$/;
const METER_ID = /^[a-z][a-z0-9_]{0,31}$/;
const RELIEF = { min: 0.01, max: 1000 };
const SECONDS = { min: 0, max: 86_400 };
/** A charger's lowest current (IEC 61851-1 signals 6 A at the least) up to a 3-phase 80 A. */
const AMPS = { min: 1, max: 80 };

const idSchema = { type: 'string', maxLength: 15, pattern: ID.source };

/** A stage as JSON Schema: the API description and the limits the settings form applies. */
export const STAGE_JSON_SCHEMA = {
  type: 'object',
  required: ['id', 'shed', 'restore', 'relief_kw'],
  properties: {
    id: idSchema,
    shed: idSchema,
    restore: idSchema,
    relief_kw: { type: 'number', minimum: RELIEF.min, maximum: RELIEF.max },
    meter: { type: 'string', maxLength: 32, pattern: METER_ID.source },
    min_on_s: { type: 'integer', minimum: SECONDS.min, maximum: SECONDS.max },
    min_off_s: { type: 'integer', minimum: SECONDS.min, maximum: SECONDS.max },
    phases: { type: 'integer', enum: [1, 3] },
    min_a: { type: 'integer', minimum: AMPS.min, maximum: AMPS.max },
    locks: { type: 'array', items: idSchema },
  },
};
const KEYS = new Set([
  'id',
  'shed',
  'restore',
  'relief_kw',
  'meter',
  'min_on_s',
  'min_off_s',
  'phases',
  'min_a',
  'locks',
]);
/** Names an object's own prototype chain answers to: a stage id keys the times of the state. */
const RESERVED_IDS = new Set([
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function numberProblem(value: unknown, min: number, max: number, integer: boolean): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
  if (integer && !Number.isInteger(value)) return 'must be an integer';
  if (value < min || value > max) return `must be in ${min}..${max}`;
  return undefined;
}

function stageProblems(stage: unknown, at: string): StageProblem[] {
  if (!isObject(stage)) return [{ field: at, message: 'must be an object' }];
  const problems: StageProblem[] = [];
  const add = (key: string, message: string) =>
    problems.push({ field: `${at}.${key}`, message, value: stage[key] });
  for (const key of Object.keys(stage)) if (!KEYS.has(key)) add(key, 'unknown key');
  for (const key of ['id', 'shed', 'restore']) {
    if (typeof stage[key] !== 'string' || !ID.test(stage[key] as string))
      add(key, 'must be an id of 1..15 letters, digits, "_" or "-"');
  }
  if (typeof stage.id === 'string' && RESERVED_IDS.has(stage.id)) add('id', 'is a reserved name');
  const relief = numberProblem(stage.relief_kw, RELIEF.min, RELIEF.max, false);
  if (relief) add('relief_kw', relief);
  for (const key of ['min_on_s', 'min_off_s']) {
    const problem =
      stage[key] === undefined ? undefined : numberProblem(stage[key], SECONDS.min, SECONDS.max, true);
    if (problem) add(key, problem);
  }
  if (stage.phases !== undefined && stage.phases !== 1 && stage.phases !== 3) add('phases', 'must be 1 or 3');
  const amps = stage.min_a === undefined ? undefined : numberProblem(stage.min_a, AMPS.min, AMPS.max, true);
  if (amps) add('min_a', amps);
  if (stage.meter !== undefined && (typeof stage.meter !== 'string' || !METER_ID.test(stage.meter)))
    add('meter', 'must be a meter id');
  const locks = stage.locks ?? [];
  if (!Array.isArray(locks) || locks.some((lock) => typeof lock !== 'string' || !ID.test(lock)))
    add('locks', 'must be a list of action ids');
  return problems;
}

/** Every problem of a stage list on its own, each naming its field (`[1].id`). */
export function stageListProblems(value: unknown): StageProblem[] {
  if (!Array.isArray(value)) return [{ field: '', message: 'must be a list of stages' }];
  if (value.length > MAX_STAGES) return [{ field: '', message: `at most ${MAX_STAGES} stages` }];
  const problems = value.flatMap((stage, index) => stageProblems(stage, `[${index}]`));
  if (problems.length > 0) return problems;
  const seen = new Map<string, number>();
  (value as PeakStage[]).forEach((stage, index) => {
    const first = seen.get(stage.id);
    if (first !== undefined)
      problems.push({
        field: `[${index}].id`,
        message: `stage "${stage.id}" is listed twice (also stages[${first}])`,
        value: stage.id,
      });
    else seen.set(stage.id, index);
  });
  return problems;
}

/** A stage list with its defaults filled in (min_on_s, min_off_s 0; locks []). */
export function normalizeStages(value: readonly PeakStage[]): PeakStage[] {
  return value.map((stage) => ({
    ...stage,
    min_on_s: stage.min_on_s ?? 0,
    min_off_s: stage.min_off_s ?? 0,
    locks: stage.locks ?? [],
  }));
}
