import type { SettingsChoices, SettingsLimits } from '../../contracts/page.js';
import { api, ApiError } from './api.js';
import { setAt, valueAt } from './fields.js';
import { applyLimits } from './form-limits.js';
import { clearIssues, collectForm, fillForm, saveFooter, setStatus, showFailure } from './forms.js';
import { t, tOr, type MessageKey } from './i18n/i18n.js';
import { labelled, showRange } from './peak-settings.js';

/**
 * The settings form of services.export_limiter (docs/architecture.md#export-limiter): every field
 * named by its config path, numbers limited by the schema (GET /api/v1/settings/limits), the mode
 * from GET /api/v1/settings/choices, the meter from GET /api/v1/meters, and the inverter list as
 * rows of labelled fields. Saved with PUT /api/v1/settings; the server validates and its 400 is
 * shown next to the field it names (an inverter's field as `inverters[1].source`).
 */

const BASE = 'services.export_limiter';
const INVERTERS = `${BASE}.inverters`;

type FieldKind = 'check' | 'number' | 'choice' | 'meter';

const FIELDS: Array<[key: string, label: MessageKey, kind: FieldKind]> = [
  ['enabled', 'limiter.enabled', 'check'],
  ['meter', 'limiter.meter', 'meter'],
  ['mode', 'limiter.mode', 'choice'],
  ['target_w', 'limiter.target_w', 'number'],
  ['deadband_w', 'limiter.deadband_w', 'number'],
  ['export_threshold', 'limiter.export_threshold', 'number'],
  ['safe_pct', 'limiter.safe_pct', 'number'],
  ['stale_after_s', 'limiter.stale_after_s', 'number'],
  ['revert_s', 'limiter.revert_s', 'number'],
  ['refresh_s', 'limiter.refresh_s', 'number'],
];

/** Profiles offered in the list (the server's settings check has the final word). */
const PROFILES = ['sunspec', 'fronius', 'sma', 'solaredge', 'huawei', 'victron_ess'];

interface InverterRow {
  id: string;
  source: string;
  profile: string;
  wmax_w?: number;
  pv_meter?: string;
}

const INVERTER_FIELDS: Array<[key: 'id' | 'source' | 'profile' | 'wmax_w', label: MessageKey]> = [
  ['id', 'limiter.inverter_id'],
  ['source', 'limiter.inverter_source'],
  ['profile', 'limiter.inverter_profile'],
  ['wmax_w', 'limiter.inverter_wmax'],
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
  if (kind === 'number') made.step = 'any';
  return made;
}

/** One inverter's fieldset; its inputs carry no name (collected by inverterRows, not collectForm). */
function inverterRow(list: HTMLElement, inverter: Partial<InverterRow> = {}): void {
  const row = document.createElement('fieldset');
  row.className = 'limiter-inverter';
  for (const [key, label] of INVERTER_FIELDS) {
    const input = document.createElement('input');
    input.dataset.field = key;
    if (key === 'wmax_w') {
      input.type = 'number';
      input.min = '1';
    } else input.type = 'text';
    if (key === 'profile') input.setAttribute('list', 'limiter-profiles');
    const value = inverter[key];
    input.value = value === undefined ? (key === 'profile' ? 'sunspec' : '') : String(value);
    row.append(labelled(t(label), input, false));
  }
  if (inverter.pv_meter !== undefined) row.dataset.pvMeter = inverter.pv_meter;
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'limiter-remove';
  remove.textContent = t('limiter.remove_inverter');
  remove.addEventListener('click', () => row.remove());
  row.append(remove);
  list.append(row);
}

function inverterRows(list: HTMLElement): InverterRow[] {
  return [...list.querySelectorAll<HTMLElement>('fieldset.limiter-inverter')].map((row) => {
    const value = (key: string) => row.querySelector<HTMLInputElement>(`[data-field="${key}"]`)!.value.trim();
    const entry: InverterRow = { id: value('id'), source: value('source'), profile: value('profile') };
    if (value('wmax_w') !== '') entry.wmax_w = Number(value('wmax_w'));
    if (row.dataset.pvMeter !== undefined) entry.pv_meter = row.dataset.pvMeter;
    return entry;
  });
}

/** The server's issues about `inverters[i].<field>` marked on that row's input. */
function markInverterIssues(list: HTMLElement, fields: { field: string; message: string }[]): void {
  const rows = [...list.querySelectorAll<HTMLElement>('fieldset.limiter-inverter')];
  for (const issue of fields) {
    const found = /inverters\[(\d+)\]\.(\w+)/.exec(issue.field);
    const input =
      found && rows[Number(found[1])]?.querySelector<HTMLInputElement>(`[data-field="${found[2]}"]`);
    if (!input) continue;
    input.setAttribute('aria-invalid', 'true');
    input.classList.add('invalid');
    const note = document.createElement('small');
    note.className = 'field-error';
    note.textContent = issue.message;
    input.after(note);
  }
}

function build(form: HTMLFormElement): HTMLElement {
  const title = document.createElement('h2');
  title.textContent = t('limiter.settings_title');
  form.append(title);
  for (const [key, label, kind] of FIELDS)
    form.append(labelled(t(label), control(key, kind), kind === 'check'));
  const profiles = document.createElement('datalist');
  profiles.id = 'limiter-profiles';
  profiles.append(...PROFILES.map((profile) => new Option(profile, profile)));
  const inverters = document.createElement('fieldset');
  const legend = document.createElement('legend');
  legend.textContent = t('limiter.inverters_legend');
  const list = document.createElement('div');
  list.id = 'limiter-inverter-list';
  const add = document.createElement('button');
  add.type = 'button';
  add.id = 'limiter-add-inverter';
  add.textContent = t('limiter.add_inverter');
  add.addEventListener('click', () => inverterRow(list));
  inverters.append(legend, list, add, profiles);
  form.append(inverters, saveFooter());
  return list;
}

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
              tOr(`limiter.mode_${choice.value}`, choice.label),
            ]);
      field.replaceChildren(...values.map(([value, text]) => new Option(text, value)));
    } else if (field.type === 'number') {
      applyLimits(field, limits[path]);
      showRange(field, limits[path]);
    }
  }
}

class LimiterSettingsForm {
  private readonly list: HTMLElement;

  constructor(private readonly form: HTMLFormElement) {
    this.list = build(form);
    form.noValidate = true;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.save();
    });
  }

  private show(settings: unknown): void {
    const meter = this.form.querySelector<HTMLSelectElement>(`[name="${BASE}.meter"]`)!;
    const saved = valueAt(settings, `${BASE}.meter`);
    if (typeof saved === 'string' && ![...meter.options].some((option) => option.value === saved))
      meter.append(new Option(saved, saved));
    fillForm(this.form, settings);
    this.list.replaceChildren();
    for (const inverter of (valueAt(settings, INVERTERS) as InverterRow[] | undefined) ?? [])
      inverterRow(this.list, inverter);
  }

  private save(): void {
    setStatus(this.form, t('common.saving'), 'busy');
    clearIssues(this.form);
    const body = collectForm(this.form);
    setAt(body, INVERTERS, inverterRows(this.list));
    api<unknown>('PUT', '/api/v1/settings', body)
      .then((settings) => {
        clearIssues(this.form);
        this.show(settings);
        setStatus(this.form, t('common.saved'));
      })
      .catch((error: unknown) => {
        showFailure(this.form, error);
        if (error instanceof ApiError) markInverterIssues(this.list, error.fields);
      });
  }

  async load(): Promise<void> {
    clearIssues(this.form);
    try {
      const [choices, limits, meterList, settings] = await Promise.all([
        api<SettingsChoices>('GET', '/api/v1/settings/choices'),
        api<SettingsLimits>('GET', '/api/v1/settings/limits'),
        api<{ id: string }[]>('GET', '/api/v1/meters'),
        api<unknown>('GET', '/api/v1/settings'),
      ]);
      prepare(
        this.form,
        choices,
        limits,
        meterList.map((meter) => meter.id),
      );
      this.show(settings);
      setStatus(this.form, '');
    } catch (error) {
      showFailure(this.form, error);
    }
  }
}

/** Builds the form and binds it; returns its loader (run when the Services tab opens). */
export function bindLimiterSettings(form: HTMLFormElement): () => Promise<void> {
  const bound = new LimiterSettingsForm(form);
  return () => bound.load();
}
