import { saveFooter } from './forms.js';
import { t } from './i18n/i18n.js';

/**
 * The settings form of services.costs (docs/architecture.md#costs), built from the catalogue:
 * prices of import and export (a fixed price, T1/T2 by the meter's tariff register, or a
 * time-of-use table, or the day-ahead market with a fallback) and the monthly standing charge; for
 * the day-ahead market the source and the contract formula, shown with the user's numbers and one
 * worked example (docs/architecture.md#prices). The mode selects get their values from the
 * schema (data-choices); only the fields of the chosen mode are shown. The server validates.
 */

const MODE_FIELDS: Record<string, string[]> = {
  fixed: ['price'],
  tariff: ['t1', 't2'],
  time_of_use: ['time_of_use'],
  dynamic: ['fallback', 'price', 'time_of_use'],
};

function labelled(text: string, control: HTMLElement, className?: string): HTMLLabelElement {
  const label = document.createElement('label');
  if (className) label.className = className;
  if (control instanceof HTMLInputElement && control.type === 'checkbox') label.append(control, ` ${text}`);
  else label.append(text, ' ', control);
  return label;
}

function input(name: string, type: 'text' | 'number' | 'checkbox'): HTMLInputElement {
  const made = document.createElement('input');
  made.name = name;
  made.type = type;
  if (type === 'number') made.step = 'any';
  return made;
}

function pricesFieldset(direction: 'import' | 'export'): HTMLFieldSetElement {
  const base = `services.costs.${direction}`;
  const fieldset = document.createElement('fieldset');
  fieldset.dataset.prices = direction;
  const legend = document.createElement('legend');
  legend.textContent = t(direction === 'import' ? 'costs.import_price' : 'costs.export_price');
  const mode = document.createElement('select');
  mode.name = `${base}.mode`;
  mode.dataset.choices = '';
  fieldset.append(legend, labelled(t('costs.price_by'), mode));
  const fallback = document.createElement('select');
  fallback.name = `${base}.fallback`;
  fallback.dataset.choices = '';
  const fallbackLabel = labelled(t('costs.fallback'), fallback);
  fallbackLabel.dataset.priceField = 'fallback';
  fieldset.append(fallbackLabel);
  const fields: Array<[string, string, 'number' | 'text']> = [
    ['price', t('costs.price'), 'number'],
    ['t1', t('costs.t1'), 'number'],
    ['t2', t('costs.t2'), 'number'],
    ['time_of_use', t('costs.time_of_use'), 'text'],
  ];
  for (const [key, text, type] of fields) {
    const control = input(`${base}.${key}`, type);
    if (key === 'time_of_use') control.placeholder = t('costs.time_of_use_hint');
    const label = labelled(text, control);
    label.dataset.priceField = key;
    fieldset.append(label);
  }
  mode.addEventListener('change', () => showModeFields(fieldset));
  return fieldset;
}

/** Shows the fields of the fieldset's chosen price mode only. */
function showModeFields(fieldset: HTMLFieldSetElement): void {
  const mode = fieldset.querySelector<HTMLSelectElement>('select')!.value;
  for (const label of fieldset.querySelectorAll<HTMLLabelElement>('[data-price-field]')) {
    const shown = (MODE_FIELDS[mode] ?? []).includes(label.dataset.priceField!);
    label.hidden = !shown;
    // The settings forms lay labels out with display rules that win over the hidden attribute.
    label.style.display = shown ? '' : 'none';
  }
}

/** Terms of the contract formula (docs/architecture.md#prices); the fields are named by them. */
const TERMS = ['a', 'markup', 'vat', 'tax', 'b', 'fee'];

/**
 * The source and the contract formula of the day-ahead prices, with the formula in the user's
 * numbers and a worked example. The source's currency and rate, Tibber's own charges, the charge
 * zones and the base URLs are set through the settings API (docs/guide/dynamic-prices.md).
 */
function dynamicFieldset(): HTMLFieldSetElement {
  const fieldset = document.createElement('fieldset');
  fieldset.dataset.dynamic = '';
  const legend = document.createElement('legend');
  legend.textContent = t('costs.dynamic');
  const source = document.createElement('select');
  source.name = 'services.costs.source.name';
  source.dataset.choices = '';
  const token = input('services.costs.source.token', 'text');
  token.type = 'password';
  token.setAttribute('data-secret', '');
  const preview = document.createElement('p');
  preview.className = 'muted formula-preview';
  fieldset.append(
    legend,
    labelled(t('costs.source'), source),
    labelled(t('costs.zone'), input('services.costs.source.zone', 'text')),
    labelled(t('costs.token'), token),
    ...TERMS.map((term) => labelled(term, input(`services.costs.formula.${term}`, 'number'))),
    preview,
  );
  fieldset.addEventListener('input', () => showFormula(fieldset));
  return fieldset;
}

/** The formula with the user's numbers and a worked example at a spot price of 100 per MWh. */
function showFormula(fieldset: HTMLFieldSetElement): void {
  const [a, markup, vat, tax, b, fee] = TERMS.map(
    (term) => Number(fieldset.querySelector<HTMLInputElement>(`[name$=".${term}"]`)!.value) || 0,
  ) as [number, number, number, number, number, number];
  const round = (n: number) => Math.round(n * 1e6) / 1e6;
  fieldset.querySelector('p')!.textContent = `${t('costs.formula', {
    import: `(spot × ${a} + ${markup}) × (1 + ${vat}) + ${tax}`,
    export: `spot × ${b} − ${fee}`,
  })} ${t('costs.formula_example', {
    spot: 100,
    import: round((0.1 * a + markup) * (1 + vat) + tax),
    export: round(0.1 * b - fee),
  })}`;
}

/** Fills the (empty) costs form with its fields. */
export function buildCostForm(form: HTMLFormElement): void {
  const title = document.createElement('h2');
  title.textContent = t('costs.title');
  form.append(
    title,
    labelled(t('costs.enable'), input('services.costs.enable', 'checkbox'), 'check'),
    labelled(t('costs.currency'), input('services.costs.currency', 'text')),
    pricesFieldset('import'),
    pricesFieldset('export'),
    dynamicFieldset(),
    labelled(t('costs.standing'), input('services.costs.standing_charge', 'number')),
    saveFooter(),
  );
}

/** After the form was filled: the fields of each chosen mode. */
export function syncCostForm(form: HTMLFormElement): void {
  for (const fieldset of form.querySelectorAll<HTMLFieldSetElement>('fieldset[data-prices]'))
    showModeFields(fieldset);
  const dynamic = form.querySelector<HTMLFieldSetElement>('fieldset[data-dynamic]');
  if (dynamic) showFormula(dynamic);
}
