import type { ActionRequest } from '../../contracts/actions.js';
import type { ActionsChoices } from '../../contracts/page.js';
import { t, type MessageKey } from './i18n/i18n.js';

/**
 * The request editors of the Actions page: one fieldset per request, HTTP (url, method, headers
 * one "Name: value" per line, the names of secret headers, payload, timeout) or Modbus (host, port,
 * unit, function, address, type, value, timeout), read back into the device's request objects. The
 * lists (methods, function codes, value types) and the timeout's limits come from the server's
 * choices; each fieldset has a picker that inserts a `${variable}` (measured values with label and unit, constants, the other
 * template variables) into its last focused text field.
 */

/** One group of the value picker: its title and [variable name, shown text] entries. */
export interface PickerGroup {
  title: string;
  entries: Array<[name: string, text: string]>;
}

export interface RequestContext {
  choices: ActionsChoices;
  /** The picker's groups, asked each time it opens (constants change while the form is open). */
  pickerGroups: () => PickerGroup[];
}

type Field = {
  name: string;
  label: MessageKey;
  kind?: 'number' | 'textarea';
  /** A select of the server's list (its own tables: methods, function codes, value types). */
  options?: (choices: ActionsChoices) => string[];
  placeholder?: string;
};

/** Both kinds of request end with their timeout. */
const TIMEOUT: Field = { name: 'timeout', label: 'actions.timeout', kind: 'number' };

const HTTP_FIELDS: Field[] = [
  { name: 'url', label: 'actions.url', placeholder: 'http://plug.local/relay/0?turn=on' },
  { name: 'method', label: 'actions.method', options: (choices) => choices.http_methods },
  { name: 'headers', label: 'actions.headers', kind: 'textarea' },
  { name: 'secret_headers', label: 'action_form.secret_headers', placeholder: 'X-Auth-Token' },
  { name: 'payload', label: 'actions.payload', kind: 'textarea', placeholder: '{"on":true,"p":${2_7_0}}' },
  TIMEOUT,
];

const MODBUS_FIELDS: Field[] = [
  { name: 'host', label: 'actions.host' },
  { name: 'port', label: 'settings.port', kind: 'number' },
  { name: 'unit_id', label: 'settings.unit_id', kind: 'number' },
  { name: 'func', label: 'actions.function', options: (choices) => choices.modbus_funcs.map(String) },
  { name: 'address', label: 'settings.address', kind: 'number' },
  { name: 'type', label: 'modbus.type', options: (choices) => choices.value_types },
  { name: 'value', label: 'actions.value' },
  TIMEOUT,
];

function control(field: Field, value: unknown, choices: ActionsChoices): HTMLElement {
  const label = document.createElement('label');
  label.textContent = t(field.label);
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  if (field.options) {
    input = document.createElement('select');
    for (const option of field.options(choices)) input.add(new Option(option, option));
  } else if (field.kind === 'textarea') {
    input = document.createElement('textarea');
    input.rows = 2;
  } else {
    input = document.createElement('input');
    input.type = field.kind === 'number' ? 'number' : 'text';
    if (field.kind === 'number') input.step = 'any';
    if (field.name === 'timeout') {
      input.min = String(choices.limits.timeoutSeconds.min);
      input.max = String(choices.limits.timeoutSeconds.max);
    }
  }
  input.dataset.field = field.name;
  // The server's defaults for what is left empty.
  const placeholder =
    field.name === 'port'
      ? String(choices.defaults.modbusPort)
      : field.name === 'unit_id'
        ? String(choices.defaults.unitId)
        : field.placeholder;
  if (placeholder && !(input instanceof HTMLSelectElement)) input.placeholder = placeholder;
  if (value !== undefined && value !== null) input.value = String(value);
  label.append(input);
  return label;
}

/** Puts `${name}` at the cursor of a text field. */
function insertAt(field: HTMLInputElement | HTMLTextAreaElement, name: string): void {
  const text = `\${${name}}`;
  const start = field.selectionStart ?? field.value.length;
  const end = field.selectionEnd ?? start;
  field.value = field.value.slice(0, start) + text + field.value.slice(end);
  field.focus();
  field.setSelectionRange(start + text.length, start + text.length);
}

/** The "Insert a value" select of a request fieldset. */
function picker(fieldset: HTMLFieldSetElement, context: RequestContext): HTMLElement {
  const select = document.createElement('select');
  select.className = 'value-picker';
  select.setAttribute('aria-label', t('action_form.insert_value'));
  const fill = () => {
    select.replaceChildren(new Option(t('action_form.insert_value_placeholder'), ''));
    for (const group of context.pickerGroups()) {
      if (group.entries.length === 0) continue;
      const element = document.createElement('optgroup');
      element.label = group.title;
      for (const [name, text] of group.entries) element.append(new Option(text, name));
      select.append(element);
    }
  };
  fill();
  select.addEventListener('focus', fill);
  let target: HTMLInputElement | HTMLTextAreaElement | undefined;
  fieldset.addEventListener('focusin', (event) => {
    const field = event.target;
    if ((field instanceof HTMLInputElement && field.type === 'text') || field instanceof HTMLTextAreaElement)
      target = field;
  });
  select.addEventListener('change', () => {
    const name = select.value;
    select.value = '';
    const field =
      target ??
      fieldset.querySelector<HTMLInputElement>('[data-field=payload], [data-field=value]') ??
      undefined;
    if (name && field) insertAt(field, name);
  });
  const label = document.createElement('label');
  label.append(t('action_form.insert_value'), ' ', select);
  return label;
}

/** A fieldset editing one request; `remove` takes it out of the list. */
export function requestEditor(request: ActionRequest, context: RequestContext): HTMLFieldSetElement {
  const kind = request.modbus ? 'modbus' : 'http';
  const fieldset = document.createElement('fieldset');
  fieldset.className = 'action-request';
  fieldset.dataset.kind = kind;
  const legend = document.createElement('legend');
  legend.textContent = t(kind === 'http' ? 'actions.http_request' : 'actions.modbus_write');
  fieldset.append(legend);
  const values: Record<string, unknown> = { ...(request.http ?? request.modbus ?? {}) };
  if (kind === 'http' && request.http?.headers)
    values.headers = Object.entries(request.http.headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n');
  // Secret values are never shown (GET gives their lengths); their names keep the stored values.
  if (kind === 'http') values.secret_headers = (request.http?.secret_headers ?? []).join(', ');
  for (const field of kind === 'http' ? HTTP_FIELDS : MODBUS_FIELDS)
    fieldset.append(control(field, values[field.name], context.choices));
  fieldset.append(picker(fieldset, context));
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.textContent = t('actions.remove_request');
  remove.addEventListener('click', () => fieldset.remove());
  fieldset.append(remove);
  return fieldset;
}

/** Headers typed one per line; own properties from entries, so any name typed is kept and sent. */
function headersOf(text: string): Record<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (line.trim() === '' || colon < 1) continue;
    headers.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return Object.fromEntries(headers);
}

/** The request a fieldset describes; empty optional fields are left out. */
export function requestOf(fieldset: HTMLFieldSetElement): ActionRequest {
  const read: Record<string, string> = {};
  for (const input of fieldset.querySelectorAll<HTMLInputElement>('[data-field]'))
    read[input.dataset.field!] = input.value;
  const number = (name: string): number | undefined => (read[name]?.trim() ? Number(read[name]) : undefined);
  const put = <T extends object>(target: T, name: string, value: unknown): T => {
    if (value !== undefined && value !== '') (target as Record<string, unknown>)[name] = value;
    return target;
  };
  if (fieldset.dataset.kind === 'modbus') {
    const modbus = {
      host: read.host ?? '',
      func: Number(read.func),
      address: number('address') ?? 0,
      value: read.value ?? '',
    };
    for (const name of ['port', 'unit_id', 'timeout']) put(modbus, name, number(name));
    put(modbus, 'type', read.type);
    return { modbus: modbus as ActionRequest['modbus'] & object };
  }
  const http = { url: read.url ?? '' };
  put(http, 'method', read.method);
  const headers = headersOf(read.headers ?? '');
  if (Object.keys(headers).length > 0) put(http, 'headers', headers);
  const secret = (read.secret_headers ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (secret.length > 0) put(http, 'secret_headers', secret);
  put(http, 'payload', read.payload);
  put(http, 'timeout', number('timeout'));
  return { http: http as ActionRequest['http'] & object };
}
