import type { PeakStage } from '../../contracts/peak.js';
import type { ActionsDefinitionView } from '../../contracts/actions.js';
import { api, ApiError } from './api.js';
import { setAt, valueAt } from './fields.js';
import { t, tOr } from './i18n/i18n.js';
import { bindSectionForm, type SectionField, type SectionPart } from './section-form.js';
import {
  addStage,
  fillStages,
  markStageIssues,
  stagesOf,
  STAGES_PATH,
  type StageChoices,
} from './peak-stages-editor.js';

/**
 * The settings form of services.peak_guard (docs/architecture.md#peak-guard), a section form
 * (section-form.ts) whose own part is the stages editor; the stages' actions come from
 * GET /api/v1/actions/definition.
 */

const BASE = 'services.peak_guard';

const FIELDS: SectionField[] = [
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

async function actionIds(): Promise<string[]> {
  try {
    const { definition } = await api<ActionsDefinitionView>('GET', '/api/v1/actions/definition');
    return (definition?.actions ?? []).map((action) => action.id);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return []; // the FREE license: no actions
    throw error;
  }
}

/** The stages editor as the part of the form beyond its fields. */
function stagesPart(): SectionPart {
  const element = document.createElement('fieldset');
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
  element.append(legend, noActions, editor, add);
  let choices: StageChoices = { actions: [], meters: [], limits: {} };
  add.addEventListener('click', () => addStage(editor, choices));
  return {
    element,
    async load(meters, limits) {
      const actions = await actionIds();
      choices = { actions, meters, limits };
      noActions.hidden = actions.length > 0;
    },
    fill(settings) {
      fillStages(editor, (valueAt(settings, STAGES_PATH) as PeakStage[] | undefined) ?? [], choices);
    },
    collect(body) {
      setAt(body, STAGES_PATH, stagesOf(editor));
    },
    markIssues(fields) {
      markStageIssues(editor, fields);
    },
  };
}

/** Builds the form and binds it; returns its loader (run when the Services tab opens). */
export function bindPeakSettings(form: HTMLFormElement): () => Promise<void> {
  return bindSectionForm(
    form,
    {
      base: BASE,
      title: 'peak.settings_title',
      fields: FIELDS,
      choiceText: (value, label) => tOr(`peak.choice_${value}`, label),
    },
    stagesPart(),
  );
}
