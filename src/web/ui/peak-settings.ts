import type { PeakStage } from '../../contracts/peak.js';
import type { ActionsDefinitionView } from '../../contracts/actions.js';
import type { SettingLimits, SettingsChoices, SettingsLimits } from '../../contracts/page.js';
import { api, ApiError, element } from './api.js';
import { setAt, valueAt } from './fields.js';
import { decimalsOfStep, formatNumber } from './format.js';
import { applyLimits } from './form-limits.js';
import { clearIssues, collectForm, fillForm, saveFooter, setStatus, showFailure } from './forms.js';
import { t, tOr, type MessageKey } from './i18n/i18n.js';
import {
  addStage,
  fillStages,
  markStageIssues,
  stagesOf,
  STAGES_PATH,
  type StageChoices,
} from './peak-stages-editor.js';

/**
 * The settings form of services.peak_guard (docs/architecture.md#peak-guard), built here: every
 * field named by its config path, numbers limited by the schema (GET /api/v1/settings/limits),
 * fixed lists from GET /api/v1/settings/choices, the meter from GET /api/v1/meters and the stages'
 * actions from GET /api/v1/actions. Saved with PUT /api/v1/settings; the server validates and its
 * 400 is shown next to the field it names.
 */

const BASE = 'services.peak_guard';

type FieldKind = 'check' | 'number' | 'choice' | 'meter';

const FIELDS: Array<[key: string, label: MessageKey, kind: FieldKind]> = [
  ['enabled', 'peak.enabled', 'check'],
  ['model', 'peak.model', 'choice'],
  ['window_s', 'peak.window_s', 'number'],
  ['meter', 'peak.meter', 'meter'],
  ['limit_kw', 'peak.limit_kw', 'number'],
  ['mode', 'peak.mode', 'choice'],
  ['warn_margin_kw', 'peak.warn_margin_kw', 'number'],
  ['margin_kw', 'peak.margin_kw', 'number'],
  ['floor_kw', 'peak.floor_kw', 'number'],
  ['arm_after_s', 'peak.arm_after_s', 'number'],
  ['step_delay_s', 'peak.step_delay_s', 'number'],
  ['hysteresis_kw', 'peak.hysteresis_kw', 'number'],
  ['hold_s', 'peak.hold_s', 'number'],
  ['on_stale', 'peak.on_stale', 'choice'],
  ['eur_per_kw_year', 'peak.eur_per_kw_year', 'number'],
];

function control(key: string, kind: FieldKind): HTMLInputElement | HTMLSelectElement {
  const name = `${BASE}.${key}`;
  if (kind === 'choice' || kind === 'meter') {
    const made = document.createElement('select');
    made.name = name;
    return made;
  }
  const made = document.createElement('input');
  made.name = name;
  made.type = kind === 'check' ? 'checkbox' : 'number';
  return made;
}

export function labelled(text: string, field: HTMLElement, check: boolean): HTMLLabelElement {
  const label = document.createElement('label');
  if (check) label.className = 'check';
  const span = document.createElement('span');
  span.textContent = text;
  if (check) label.append(field, ' ', span);
  else label.append(span, ' ', field);
  return label;
}

function build(form: HTMLFormElement): HTMLElement {
  const title = document.createElement('h2');
  title.textContent = t('peak.settings_title');
  form.append(title);
  for (const [key, label, kind] of FIELDS)
    form.append(labelled(t(label), control(key, kind), kind === 'check'));
  const stages = document.createElement('fieldset');
  const legend = document.createElement('legend');
  legend.textContent = t('peak.stages_legend');
  const editor = document.createElement('div');
  editor.id = 'peak-stage-list';
  const noActions = document.createElement('p');
  noActions.id = 'peak-no-actions';
  noActions.className = 'muted';
  noActions.textContent = t('peak.no_actions');
  noActions.hidden = true;
  const add = document.createElement('button');
  add.type = 'button';
  add.id = 'peak-add-stage';
  add.textContent = t('peak.add_stage');
  stages.append(legend, noActions, editor, add);
  form.append(stages, saveFooter());
  return editor;
}

/** Options of the fixed lists (translated labels) and the meter ids; limits on the numbers. */
function prepare(
  form: HTMLFormElement,
  choices: SettingsChoices,
  limits: SettingsLimits,
  meters: string[],
): void {
  for (const [key, , kind] of FIELDS) {
    const path = `${BASE}.${key}`;
    const field = form.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${path}"]`)!;
    if (field instanceof HTMLSelectElement) {
      const values =
        kind === 'meter'
          ? meters.map((id): [string, string] => [id, id])
          : (choices[path] ?? []).map((choice): [string, string] => [
              choice.value,
              tOr(`peak.choice_${choice.value}`, choice.label),
            ]);
      field.replaceChildren(...values.map(([value, text]) => new Option(text, value)));
    } else if (field.type === 'number') {
      applyLimits(field, limits[path]);
      showRange(field, limits[path]);
    }
  }
}

/** The schema's range beside a number field's label, as the other forms show theirs. */
export function showRange(field: HTMLInputElement, limits: SettingLimits | undefined): void {
  const label = field.closest('label');
  if (!label || limits?.min === undefined || limits.max === undefined) return;
  let hint = label.querySelector('small');
  if (!hint) {
    hint = document.createElement('small');
    label.querySelector('span')!.after(' ', hint);
  }
  hint.textContent = `(${formatNumber(limits.min, decimalsOfStep(limits.min))}..${formatNumber(limits.max, 0)})`;
}

async function actionIds(): Promise<string[]> {
  try {
    const { definition } = await api<ActionsDefinitionView>('GET', '/api/v1/actions/definition');
    return (definition?.actions ?? []).map((action) => action.id);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return []; // the FREE license: no actions
    throw error;
  }
}

/** The form bound to the settings API: filled on load, saved with PUT, errors shown by field. */
class PeakSettingsForm {
  private readonly editor: HTMLElement;
  private choices: StageChoices = { actions: [], meters: [], limits: {} };

  constructor(private readonly form: HTMLFormElement) {
    this.editor = build(form);
    // The API validates; its messages are the ones shown next to the fields.
    form.noValidate = true;
    element('peak-add-stage').addEventListener('click', () => addStage(this.editor, this.choices));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.save();
    });
  }

  private show(settings: unknown): void {
    const meter = this.form.querySelector<HTMLSelectElement>(`[name="${BASE}.meter"]`)!;
    const saved = valueAt(settings, `${BASE}.meter`);
    // A meter the registry does not list (yet) stays choosable, so what is stored is shown.
    if (typeof saved === 'string' && ![...meter.options].some((option) => option.value === saved))
      meter.append(new Option(saved, saved));
    fillForm(this.form, settings);
    const stages = (valueAt(settings, STAGES_PATH) as PeakStage[] | undefined) ?? [];
    fillStages(this.editor, stages, this.choices);
  }

  private save(): void {
    setStatus(this.form, t('common.saving'), 'busy');
    const body = collectForm(this.form);
    setAt(body, STAGES_PATH, stagesOf(this.editor));
    api<unknown>('PUT', '/api/v1/settings', body)
      .then((settings) => {
        clearIssues(this.form);
        this.show(settings);
        setStatus(this.form, t('common.saved'));
      })
      .catch((error: unknown) => {
        showFailure(this.form, error);
        if (error instanceof ApiError) markStageIssues(this.editor, error.fields);
      });
  }

  async load(): Promise<void> {
    clearIssues(this.form);
    try {
      const [settingChoices, limits, meterList, actions, settings] = await Promise.all([
        api<SettingsChoices>('GET', '/api/v1/settings/choices'),
        api<SettingsLimits>('GET', '/api/v1/settings/limits'),
        api<{ id: string }[]>('GET', '/api/v1/meters'),
        actionIds(),
        api<unknown>('GET', '/api/v1/settings'),
      ]);
      const meters = meterList.map((meter) => meter.id);
      this.choices = { actions, meters, limits };
      prepare(this.form, settingChoices, limits, meters);
      element('peak-no-actions').hidden = actions.length > 0;
      this.show(settings);
      setStatus(this.form, '');
    } catch (error) {
      showFailure(this.form, error);
    }
  }
}

/** Builds the form and binds it; returns its loader (run when the Services tab opens). */
export function bindPeakSettings(form: HTMLFormElement): () => Promise<void> {
  const bound = new PeakSettingsForm(form);
  return () => bound.load();
}
