import type { PeakStage } from '../../contracts/peak.js';
import type { SettingsLimits } from '../../contracts/page.js';
import { applyLimits } from './form-limits.js';
import { t, type MessageKey } from './i18n/i18n.js';

/**
 * The stage list editor of the peak guard's settings form: one fieldset per stage, in shed order,
 * each with its id, the shed and restore actions (chosen from the defined actions), relief,
 * sub-meter, minimum on/off times and the actions it locks. Its controls carry `data-stage-field`
 * instead of a name, so the form's own field collection leaves them out; `stagesOf` reads them.
 * Limits come from the schema through GET /api/v1/settings/limits (`...stages[].<field>`).
 */

export interface StageChoices {
  actions: string[];
  meters: string[];
  limits: SettingsLimits;
}

export const STAGES_PATH = 'services.peak_guard.stages';

function labelled(text: string, control: HTMLElement): HTMLLabelElement {
  const label = document.createElement('label');
  label.append(text, ' ', control);
  return label;
}

function select(options: readonly [value: string, text: string][], multiple = false): HTMLSelectElement {
  const made = document.createElement('select');
  made.multiple = multiple;
  made.append(...options.map(([value, text]) => new Option(text, value)));
  return made;
}

function field(control: HTMLElement, key: string): HTMLElement {
  control.dataset.stageField = key;
  return control;
}

function numberInput(key: string, value: number, choices: StageChoices): HTMLInputElement {
  const input = document.createElement('input');
  input.type = 'number';
  applyLimits(input, choices.limits[`${STAGES_PATH}[].${key}`]);
  input.value = String(value);
  return input;
}

function button(text: MessageKey, action: string): HTMLButtonElement {
  const made = document.createElement('button');
  made.type = 'button';
  made.textContent = t(text);
  made.dataset.stageAction = action;
  return made;
}

/** One stage's fieldset, filled with `stage`. */
function stageFieldset(stage: PeakStage, choices: StageChoices): HTMLFieldSetElement {
  const fieldset = document.createElement('fieldset');
  fieldset.className = 'peak-stage';
  const id = document.createElement('input');
  applyLimits(id, choices.limits[`${STAGES_PATH}[].id`]);
  id.value = stage.id;
  const actions = choices.actions.map((action): [string, string] => [action, action]);
  // An action the definition no longer has stays choosable, so the server names it.
  const withValue = (value: string) =>
    value && !choices.actions.includes(value) ? [[value, value] as [string, string], ...actions] : actions;
  const shed = select(withValue(stage.shed));
  shed.value = stage.shed;
  const restore = select(withValue(stage.restore));
  restore.value = stage.restore;
  const meter = select([
    ['', t('peak.no_sub_meter')],
    ...choices.meters.map((m): [string, string] => [m, m]),
  ]);
  meter.value = stage.meter ?? '';
  const locks = select(actions, true);
  for (const option of locks.options) option.selected = stage.locks.includes(option.value);
  fieldset.append(
    labelled(t('peak.stage_id'), field(id, 'id')),
    labelled(t('peak.col_shed'), field(shed, 'shed')),
    labelled(t('peak.col_restore'), field(restore, 'restore')),
    labelled(t('peak.col_relief'), field(numberInput('relief_kw', stage.relief_kw, choices), 'relief_kw')),
    labelled(t('peak.stage_sub_meter'), field(meter, 'meter')),
    labelled(t('peak.stage_min_on'), field(numberInput('min_on_s', stage.min_on_s, choices), 'min_on_s')),
    labelled(t('peak.stage_min_off'), field(numberInput('min_off_s', stage.min_off_s, choices), 'min_off_s')),
    labelled(t('peak.stage_locks'), field(locks, 'locks')),
    button('peak.move_up', 'up'),
    button('peak.remove_stage', 'remove'),
  );
  return fieldset;
}

/** Fills the editor (a container element) with the stage list and binds its buttons once. */
export function fillStages(editor: HTMLElement, stages: readonly PeakStage[], choices: StageChoices): void {
  editor.replaceChildren(...stages.map((stage) => stageFieldset(stage, choices)));
  if (editor.dataset.bound) return;
  editor.dataset.bound = 'true';
  editor.addEventListener('click', (event) => {
    const target = event.target as HTMLElement;
    const fieldset = target.closest('fieldset.peak-stage');
    if (!fieldset) return;
    if (target.dataset.stageAction === 'remove') fieldset.remove();
    if (target.dataset.stageAction === 'up' && fieldset.previousElementSibling)
      fieldset.previousElementSibling.before(fieldset);
  });
}

/** Appends an empty stage (the first action for shed and restore). */
export function addStage(editor: HTMLElement, choices: StageChoices): void {
  const first = choices.actions[0] ?? '';
  const relief = choices.limits[`${STAGES_PATH}[].relief_kw`]?.min ?? 0;
  editor.append(
    stageFieldset(
      { id: '', shed: first, restore: first, relief_kw: relief, min_on_s: 0, min_off_s: 0, locks: [] },
      choices,
    ),
  );
}

const numberOf = (text: string): number | string => (text.trim() === '' ? '' : Number(text));

/** The editor's stages as the settings API takes them (an empty number as "": refused by name). */
export function stagesOf(editor: HTMLElement): Record<string, unknown>[] {
  return [...editor.querySelectorAll<HTMLFieldSetElement>('fieldset.peak-stage')].map((fieldset) => {
    const control = <T extends HTMLElement>(key: string) =>
      fieldset.querySelector<T>(`[data-stage-field="${key}"]`)!;
    const stage: Record<string, unknown> = {
      id: control<HTMLInputElement>('id').value.trim(),
      shed: control<HTMLSelectElement>('shed').value,
      restore: control<HTMLSelectElement>('restore').value,
      relief_kw: numberOf(control<HTMLInputElement>('relief_kw').value),
      min_on_s: numberOf(control<HTMLInputElement>('min_on_s').value),
      min_off_s: numberOf(control<HTMLInputElement>('min_off_s').value),
      locks: [...control<HTMLSelectElement>('locks').selectedOptions].map((option) => option.value),
    };
    const meter = control<HTMLSelectElement>('meter').value;
    if (meter !== '') stage.meter = meter;
    return stage;
  });
}

/**
 * Marks the stage controls an API error names (`services.peak_guard.stages[1].shed` or
 * `...stages.[1].shed`); returns how many it placed.
 */
export function markStageIssues(
  editor: HTMLElement,
  issues: readonly { field: string; message: string }[],
): number {
  let placed = 0;
  for (const issue of issues) {
    const match = /stages\.?\[(\d+)\]\.?(\w+)/.exec(issue.field);
    if (!match) continue;
    const fieldset = editor.querySelectorAll('fieldset.peak-stage')[Number(match[1])];
    const control = fieldset?.querySelector(`[data-stage-field="${match[2]}"]`);
    if (!control) continue;
    control.setAttribute('aria-invalid', 'true');
    control.classList.add('invalid');
    const note = document.createElement('span');
    note.className = 'field-error';
    note.textContent = issue.message;
    control.insertAdjacentElement('afterend', note);
    placed += 1;
  }
  return placed;
}
