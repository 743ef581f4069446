import type { MeterRole } from '../../contracts/values.js';
import type { MeterTestAnswer } from '../../contracts/meters.js';
import type { SerialPortView } from '../../contracts/status.js';
import { api, ApiError, element } from './api.js';
import { formatNumber } from './format.js';
import { t, tServer } from './i18n/i18n.js';
import { roleName } from './meters.js';

/**
 * Settings > Meter, further meters (docs/architecture.md#several-meters): add, edit and remove
 * entries of `meters`, saved with PUT /api/v1/settings; a polled meter's "test this source" asks
 * POST /api/v1/meters/test and shows its first reading or the exact error. The serial ports found
 * are offered as source suggestions.
 */

interface Entry {
  id: string;
  name: string;
  role: string;
  source?: string;
  timeout?: number;
  expression?: string;
}

function input(name: string, value: string, placeholder: string, type = 'text'): HTMLInputElement {
  const field = document.createElement('input');
  field.name = name;
  field.type = type;
  field.value = value;
  field.placeholder = placeholder;
  field.title = placeholder;
  return field;
}

function select(name: string, options: Record<string, string>, value: string): HTMLSelectElement {
  const field = document.createElement('select');
  field.name = name;
  field.append(
    ...Object.entries(options).map(([key, label]) => new Option(label, key, false, key === value)),
  );
  return field;
}

function button(text: string, onClick: () => void): HTMLButtonElement {
  const made = document.createElement('button');
  made.type = 'button';
  made.textContent = text;
  made.addEventListener('click', onClick);
  return made;
}

/**
 * The roles of the meters contract in the select's order. A record over the contract's role type,
 * so a role added to or dropped from the contract fails to compile here instead of going missing.
 */
const ROLE_ORDER: Record<MeterRole, number> = {
  grid: 0,
  pv: 1,
  battery: 2,
  ev: 3,
  heat_pump: 4,
  consumer: 5,
  other: 6,
};
const ROLES = (Object.keys(ROLE_ORDER) as MeterRole[]).sort((a, b) => ROLE_ORDER[a] - ROLE_ORDER[b]);

/** The role choices in the page's language (value: the role the config names). */
function roleOptions(): Record<string, string> {
  return Object.fromEntries(ROLES.map((role) => [role, roleName(role)]));
}

function rowOf(entry: Entry): HTMLElement {
  const row = document.createElement('fieldset');
  row.className = 'meter-entry';
  const virtual = entry.expression !== undefined;
  const kind = select(
    'kind',
    { polled: t('meters.kind_polled'), virtual: t('meters.kind_virtual') },
    virtual ? 'virtual' : 'polled',
  );
  const what = input(
    'what',
    entry.expression ?? entry.source ?? '',
    virtual ? t('meters.expression') : t('meters.source'),
  );
  what.setAttribute('list', 'meters-ports');
  const timeout = input(
    'timeout',
    entry.timeout === undefined ? '' : String(entry.timeout),
    t('meters.timeout'),
    'number',
  );
  const result = document.createElement('output');
  result.className = 'meter-test';
  kind.addEventListener('change', () => {
    what.placeholder = kind.value === 'virtual' ? t('meters.expression') : t('meters.source');
    timeout.disabled = kind.value === 'virtual';
  });
  timeout.disabled = virtual;
  row.append(
    input('id', entry.id, t('meters.id')),
    input('name', entry.name, t('meters.name')),
    select('role', roleOptions(), entry.role),
    kind,
    what,
    timeout,
    button(t('meters.test'), () => void testSource(what.value, kind.value, result)),
    button(t('meters.remove'), () => row.remove()),
    result,
  );
  return row;
}

async function testSource(source: string, kind: string, result: HTMLOutputElement): Promise<void> {
  if (kind === 'virtual') return;
  result.textContent = t('meters.testing');
  try {
    const answer = await api<MeterTestAnswer>('POST', '/api/v1/meters/test', { source, wait: 10 });
    if (!answer.ok) {
      result.textContent = t('meters.no_reading', {
        status: answer.status,
        error: tServer(answer.error, answer.error_key, answer.error_args),
      });
      return;
    }
    const active = answer.report.instantaneous_power?.active;
    const power = (active?.positive?.total ?? 0) - (active?.negative?.total ?? 0);
    result.textContent = t('meters.first_reading', {
      status: answer.meter.status,
      power: formatNumber(power, 3),
    });
  } catch (error) {
    result.textContent = (error as Error).message;
  }
}

function entryOf(row: HTMLElement): Entry {
  const value = (name: string) =>
    row.querySelector<HTMLInputElement | HTMLSelectElement>(`[name=${name}]`)!.value;
  const entry: Entry = { id: value('id'), name: value('name'), role: value('role') };
  if (value('kind') === 'virtual') return { ...entry, expression: value('what') };
  const timeout = value('timeout');
  return { ...entry, source: value('what'), ...(timeout === '' ? {} : { timeout: Number(timeout) }) };
}

/** Binds the editor; returns the loader the meter tab runs when it opens. */
export function bindMetersSettings(): () => Promise<void> {
  const form = element<HTMLFormElement>('form-meters');
  const rows = element('meters-rows');
  const status = form.querySelector<HTMLOutputElement>('.form-status')!;
  const add = element<HTMLButtonElement>('meters-add');
  add.addEventListener('click', () => rows.append(rowOf({ id: '', name: '', role: 'pv', source: '' })));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const meters = [...rows.querySelectorAll<HTMLElement>('.meter-entry')].map(entryOf);
    status.textContent = '';
    api('PUT', '/api/v1/settings', { meters })
      .then(() => (status.textContent = t('meters.saved')))
      .catch((error: Error) => {
        // The API names the entry and field (`meters[1].id: "pv" is already the id of meters[0]`).
        const fields = error instanceof ApiError ? error.fields.map((issue) => issue.message) : [];
        status.textContent = fields.length > 0 ? fields.join('; ') : error.message;
      });
  });
  return async () => {
    // A row added while the stored list is still loading would be replaced by it: no adding until then.
    add.disabled = true;
    const [settings, ports] = await Promise.all([
      api<{ meters?: Entry[] }>('GET', '/api/v1/settings'),
      api<{ ports: SerialPortView[] }>('GET', '/api/v1/serial/ports').catch(() => ({ ports: [] })),
    ]);
    rows.replaceChildren(...(settings.meters ?? []).map(rowOf));
    add.disabled = false;
    element('meters-ports').replaceChildren(
      ...ports.ports.flatMap((port) => [
        new Option(`modbus-rtu:${port.path}?unit=1&profile=sdm630`),
        new Option(`serial:${port.path}?protocol=auto`),
      ]),
    );
  };
}
