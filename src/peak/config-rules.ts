import { FormatError, jsonFromEnv, registerFormats, type ConfigFormat } from '../config/formats.js';
import { getPath } from '../config/paths.js';
import { registerRules, type ConfigRule } from '../config/rules.js';
import type { ValidationIssue } from '../config/validation.js';
import { MAX_STAGES, STAGE_JSON_SCHEMA, stageListProblems, type PeakStage } from './stages.js';
import { declareVariables } from '../actions/variables.js';
import { PEAK_BUDGET_VARIABLE, PEAK_VARIABLES } from './contributors.js';
import { MODEL_FORMATS, MODEL_RULES } from './model-formats.js';
import { windowSeconds } from './tariff-model.js';
import type { PeakSettings } from './engine-types.js';
import { MAIN_METER_ID } from '../reading/meter-entries.js';

declare module '../config/formats.js' {
  interface FormatTypes {
    /** services.peak_guard.stages (stages.ts). */
    'peak-stages': PeakStage[];
  }
}

/**
 * The peak guard's settings rules (docs/architecture.md#peak-guard): the stage list's shape and
 * unique ids (a format), and, over two keys, the stages against the actions definition: every
 * shed, restore and lock names a defined action, and no stage locks, directly or through other
 * stages, its own shed or restore action (a cycle of locks would keep a load off for good).
 */

const PEAK_STAGES: ConfigFormat = {
  name: 'peak-stages',
  validate(value) {
    const parts = stageListProblems(value);
    if (parts.length > 0)
      throw new FormatError(
        'invalid-stages',
        parts.map((part) => `${part.field}: ${part.message}`).join('; '),
        {
          parts,
        },
      );
  },
  describe: () =>
    'list of {id, shed, restore, relief_kw, meter?, min_on_s, min_off_s, phases?, min_a?, locks}',
  jsonSchema: () => ({ type: 'array', maxItems: MAX_STAGES, items: STAGE_JSON_SCHEMA }),
  fromEnv: jsonFromEnv,
};

const STAGES = 'services.peak_guard.stages';

function actionIds(tree: Record<string, unknown>): Set<string> {
  const definition = getPath(tree, 'actions.definition') as { actions?: { id?: unknown }[] } | null;
  const ids = (definition?.actions ?? []).map((action) => action.id);
  return new Set(ids.filter((id): id is string => typeof id === 'string'));
}

function unknownActionIssues(stages: readonly PeakStage[], known: ReadonlySet<string>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  stages.forEach((stage, index) => {
    const named: [string, string][] = [
      ['shed', stage.shed],
      ['restore', stage.restore],
      ...(stage.locks ?? []).map((lock, at): [string, string] => [`locks[${at}]`, lock]),
    ];
    for (const [key, id] of named) {
      if (!known.has(id))
        issues.push({
          field: `${STAGES}[${index}].${key}`,
          message: `names unknown action "${id}"`,
          value: id,
        });
    }
  });
  return issues;
}

/** Stage a depends on stage b when a locks b's shed or restore action; a cycle is an issue. */
export function lockCycle(stages: readonly PeakStage[]): number[] | undefined {
  const edges = stages.map((stage) =>
    stages.flatMap((other, index) =>
      (stage.locks ?? []).some((lock) => lock === other.shed || lock === other.restore) ? [index] : [],
    ),
  );
  const done = new Set<number>();
  const walk = (index: number, path: number[]): number[] | undefined => {
    const loop = path.indexOf(index);
    if (loop >= 0) return [...path.slice(loop), index];
    if (done.has(index)) return undefined;
    for (const next of edges[index]!) {
      const found = walk(next, [...path, index]);
      if (found) return found;
    }
    done.add(index);
    return undefined;
  };
  for (let index = 0; index < stages.length; index++) {
    const found = walk(index, []);
    if (found) return found;
  }
  return undefined;
}

function stageIssues(tree: Record<string, unknown>): ValidationIssue[] {
  const stages = getPath(tree, STAGES);
  if (!Array.isArray(stages) || stageListProblems(stages).length > 0) return [];
  const list = stages as PeakStage[];
  const issues = unknownActionIssues(list, actionIds(tree));
  const cycle = lockCycle(list);
  if (cycle) {
    const names = cycle.map((index) => list[index]!.id).join(' -> ');
    issues.push({
      field: `${STAGES}[${cycle[0]}].locks`,
      message: `stages lock each other's actions in a cycle: ${names}`,
    });
  }
  return issues;
}

function marginIssues(tree: Record<string, unknown>): ValidationIssue[] {
  const warn = getPath(tree, 'services.peak_guard.warn_margin_kw') as number;
  const margin = getPath(tree, 'services.peak_guard.margin_kw') as number;
  const limit = getPath(tree, 'services.peak_guard.limit_kw') as number;
  const issues: ValidationIssue[] = [];
  if (warn >= limit || margin >= limit)
    issues.push({
      field: 'services.peak_guard.limit_kw',
      message: 'must exceed warn_margin_kw and margin_kw',
      value: limit,
    });
  return issues;
}

/** custom windows must tile the local hour (window.ts): W divides 3600. */
function windowIssues(tree: Record<string, unknown>): ValidationIssue[] {
  const seconds = getPath(tree, 'services.peak_guard.window_s') as number;
  if (3600 % seconds === 0) return [];
  return [
    {
      field: 'services.peak_guard.window_s',
      message: 'must divide an hour (300, 360, 400, 450, 600, 720, 900, 1200, 1800 or 3600)',
      value: seconds,
    },
  ];
}

/**
 * A shed stage's relief is judged on the mean import over the step_delay_s after the shed took
 * effect (docs/architecture.md#peak-guard): that span, after the armed part of a window begins,
 * must fit inside the window, or a window ends before its first shed could be judged.
 */
function stepDelayIssues(tree: Record<string, unknown>): ValidationIssue[] {
  const window = windowSeconds({
    model: getPath(tree, 'services.peak_guard.model') as PeakSettings['model'],
    window_s: getPath(tree, 'services.peak_guard.window_s') as number,
  });
  const arm = getPath(tree, 'services.peak_guard.arm_after_s') as number;
  const delay = getPath(tree, 'services.peak_guard.step_delay_s') as number;
  if (arm + delay < window) return [];
  return [
    {
      field: 'services.peak_guard.step_delay_s',
      message: `with arm_after_s ${arm} s must end inside the ${window} s window (at most ${Math.max(0, window - arm - 1)} s), so a shed's relief can be judged`,
      value: delay,
    },
  ];
}

/** The guarded meter is the primary or a listed further meter, never silently another one. */
function meterIssues(tree: Record<string, unknown>): ValidationIssue[] {
  const meter = getPath(tree, 'services.peak_guard.meter');
  const listed = getPath(tree, 'meters');
  const ids = new Set(
    [
      MAIN_METER_ID,
      ...(Array.isArray(listed) ? listed : []).map((entry) => (entry as { id?: unknown })?.id),
    ].filter((id): id is string => typeof id === 'string'),
  );
  // An empty text (a form or POST that left the field out) is the primary, as in the guard.
  if (typeof meter !== 'string' || meter === '' || ids.has(meter)) return [];
  return [
    {
      field: 'services.peak_guard.meter',
      message: `names no meter: "main" or one of meters[].id (${[...ids].join(', ')})`,
      value: meter,
    },
  ];
}

const RULES: ConfigRule[] = [
  { name: 'peak-guard window length', watches: ['services.peak_guard.window_s'], check: windowIssues },
  { name: 'peak-guard meter', watches: ['services.peak_guard.meter'], check: meterIssues },
  {
    name: 'peak-guard relief time',
    watches: [
      'services.peak_guard.model',
      'services.peak_guard.window_s',
      'services.peak_guard.arm_after_s',
      'services.peak_guard.step_delay_s',
    ],
    check: stepDelayIssues,
  },
  { name: 'peak-guard stages and actions', watches: [STAGES, 'actions.definition'], check: stageIssues },
  {
    name: 'peak-guard margins',
    watches: [
      'services.peak_guard.limit_kw',
      'services.peak_guard.warn_margin_kw',
      'services.peak_guard.margin_kw',
    ],
    check: marginIssues,
  },
];

/** Registers the stage format, the rules and the names of the `peak.*` action variables; before the config loads. */
export function registerPeakConfig(): void {
  registerFormats([PEAK_STAGES, ...MODEL_FORMATS]);
  registerRules([...RULES, ...MODEL_RULES]);
  declareVariables(PEAK_VARIABLES, [PEAK_BUDGET_VARIABLE]);
}
