import { setAt, valueAt } from './fields.js';
import { t, tOr, type MessageKey } from './i18n/i18n.js';
import { bindSectionForm, labelled, type SectionField, type SectionPart } from './section-form.js';

/**
 * The settings form of services.export_limiter (docs/architecture.md#export-limiter), a section
 * form (section-form.ts) whose own part is the inverter list, rows of labelled fields; the
 * server's 400 about an inverter's field (`inverters[1].source`) is shown next to it.
 */

const BASE = 'services.export_limiter';
const INVERTERS = `${BASE}.inverters`;

const FIELDS: SectionField[] = [
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

/** The inverter list as the part of the form beyond its fields. */
function invertersPart(): SectionPart {
  const element = document.createElement('fieldset');
  const legend = document.createElement('legend');
  legend.textContent = t('limiter.inverters_legend');
  const list = document.createElement('div');
  list.id = 'limiter-inverter-list';
  const add = document.createElement('button');
  add.type = 'button';
  add.id = 'limiter-add-inverter';
  add.textContent = t('limiter.add_inverter');
  add.addEventListener('click', () => inverterRow(list));
  const profiles = document.createElement('datalist');
  profiles.id = 'limiter-profiles';
  profiles.append(...PROFILES.map((profile) => new Option(profile, profile)));
  element.append(legend, list, add, profiles);
  return {
    element,
    fill(settings) {
      list.replaceChildren();
      for (const inverter of (valueAt(settings, INVERTERS) as InverterRow[] | undefined) ?? [])
        inverterRow(list, inverter);
    },
    collect(body) {
      setAt(body, INVERTERS, inverterRows(list));
    },
    markIssues(fields) {
      markInverterIssues(list, fields);
    },
  };
}

/** Builds the form and binds it; returns its loader (run when the Services tab opens). */
export function bindLimiterSettings(form: HTMLFormElement): () => Promise<void> {
  return bindSectionForm(
    form,
    {
      base: BASE,
      title: 'limiter.settings_title',
      fields: FIELDS,
      choiceText: (value, label) => tOr(`limiter.mode_${value}`, label),
      anyStep: true,
    },
    invertersPart(),
  );
}
