import type { SettingLimits, SettingsChoices, SettingsLimits } from '../../contracts/page.js';
import { api, ApiError, isApplying } from './api.js';
import { valueAt } from './fields.js';
import { decimalsOfStep, formatNumber } from './format.js';
import { applyLimits } from './form-limits.js';
import { clearIssues, collectForm, fillForm, saveFooter, setStatus, showFailure } from './forms.js';
import { t, type MessageKey } from './i18n/i18n.js';

/**
 * A settings section's form built in code (the peak guard's, the export limiter's): a title, one
 * labelled control per setting named by its config path, and a part of its own (the peak guard's
 * stages, the limiter's inverters). Numbers are limited by the schema (GET /api/v1/settings/limits),
 * fixed lists come from GET /api/v1/settings/choices, a meter from GET /api/v1/meters. Saved with
 * PUT /api/v1/settings; the server validates and its 400 is shown next to the field it names; a
 * 202 says the change is still being applied and leaves the form as it was (the answer carries no
 * settings to refill it with).
 */

export type FieldKind = 'check' | 'number' | 'choice' | 'meter';

export type SectionField = [key: string, label: MessageKey, kind: FieldKind];

/** The part of a section form that is not one control per setting. */
export interface SectionPart {
  /** Appended after the fields, before the save footer. */
  readonly element: HTMLElement;
  /** Loads what the part needs besides the settings (called with the meter ids and limits). */
  load?(meters: string[], limits: SettingsLimits): Promise<void>;
  fill(settings: unknown): void;
  /** Adds the part's values to the body of the PUT. */
  collect(body: Record<string, unknown>): void;
  /** Marks the server's issues about the part's fields. */
  markIssues(fields: { field: string; message: string }[]): void;
}

export interface SectionSpec {
  /** The config path of the section, e.g. `services.peak_guard`. */
  base: string;
  title: MessageKey;
  fields: readonly SectionField[];
  /** A fixed list's option in the page's language, from its value and the server's label. */
  choiceText(value: string, label: string): string;
  /** `step="any"` on the number fields (the server's limits still apply). */
  anyStep?: boolean;
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

function control(spec: SectionSpec, key: string, kind: FieldKind): HTMLInputElement | HTMLSelectElement {
  const name = `${spec.base}.${key}`;
  if (kind === 'choice' || kind === 'meter') {
    const made = document.createElement('select');
    made.name = name;
    return made;
  }
  const made = document.createElement('input');
  made.name = name;
  made.type = kind === 'check' ? 'checkbox' : 'number';
  if (kind === 'number' && spec.anyStep) made.step = 'any';
  return made;
}

/** Options of the fixed lists (translated labels) and the meter ids; limits on the numbers. */
function prepare(
  form: HTMLFormElement,
  spec: SectionSpec,
  choices: SettingsChoices,
  limits: SettingsLimits,
  meters: string[],
): void {
  for (const [key, , kind] of spec.fields) {
    const path = `${spec.base}.${key}`;
    const field = form.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${path}"]`)!;
    if (field instanceof HTMLSelectElement) {
      const values =
        kind === 'meter'
          ? meters.map((id): [string, string] => [id, id])
          : (choices[path] ?? []).map((choice): [string, string] => [
              choice.value,
              spec.choiceText(choice.value, choice.label),
            ]);
      field.replaceChildren(...values.map(([value, text]) => new Option(text, value)));
    } else if (field.type === 'number') {
      applyLimits(field, limits[path]);
      showRange(field, limits[path]);
    }
  }
}

/** Builds the form of `spec` with `part` and binds it; returns its loader (run when its tab opens). */
export function bindSectionForm(
  form: HTMLFormElement,
  spec: SectionSpec,
  part: SectionPart,
): () => Promise<void> {
  const title = document.createElement('h2');
  title.textContent = t(spec.title);
  form.append(title);
  for (const [key, label, kind] of spec.fields)
    form.append(labelled(t(label), control(spec, key, kind), kind === 'check'));
  form.append(part.element, saveFooter());
  // The API validates; its messages are the ones shown next to the fields.
  form.noValidate = true;

  const show = (settings: unknown): void => {
    for (const [key, , kind] of spec.fields) {
      if (kind !== 'meter') continue;
      const path = `${spec.base}.${key}`;
      const meter = form.querySelector<HTMLSelectElement>(`[name="${path}"]`)!;
      const saved = valueAt(settings, path);
      // A meter the registry does not list (yet) stays choosable, so what is stored is shown.
      if (typeof saved === 'string' && ![...meter.options].some((option) => option.value === saved))
        meter.append(new Option(saved, saved));
    }
    fillForm(form, settings);
    part.fill(settings);
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    setStatus(form, t('common.saving'), 'busy');
    clearIssues(form);
    const body = collectForm(form);
    part.collect(body);
    api<unknown>('PUT', '/api/v1/settings', body)
      .then((settings) => {
        clearIssues(form);
        // 202: stored, still being applied; the status board tells how it ends.
        if (isApplying(settings)) {
          setStatus(form, t('apply.applying', { outputs: settings.outputs.join(', ') }), 'busy');
          return;
        }
        show(settings);
        setStatus(form, t('common.saved'));
      })
      .catch((error: unknown) => {
        showFailure(form, error);
        if (error instanceof ApiError) part.markIssues(error.fields);
      });
  });

  return async () => {
    clearIssues(form);
    try {
      const [choices, limits, meterList, settings] = await Promise.all([
        api<SettingsChoices>('GET', '/api/v1/settings/choices'),
        api<SettingsLimits>('GET', '/api/v1/settings/limits'),
        api<{ id: string }[]>('GET', '/api/v1/meters'),
        api<unknown>('GET', '/api/v1/settings'),
      ]);
      const meters = meterList.map((meter) => meter.id);
      await part.load?.(meters, limits);
      prepare(form, spec, choices, limits, meters);
      show(settings);
      setStatus(form, '');
    } catch (error) {
      showFailure(form, error);
    }
  };
}
