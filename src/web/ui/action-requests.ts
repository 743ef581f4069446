import type { ActionRequest } from '../../actions/actions-api.js';
import { t, type MessageKey } from './i18n/i18n.js';

/**
 * The request editors of the Actions page: one fieldset per request, HTTP (url, method, headers
 * one "Name: value" per line, payload, timeout) or Modbus (host, port, unit, function, address,
 * type, value, timeout), read back into the device's request objects.
 */

type Field = {
  name: string;
  label: MessageKey;
  kind?: 'number' | 'textarea' | 'select';
  options?: string[];
  placeholder?: string;
};

const HTTP_FIELDS: Field[] = [
  { name: 'url', label: 'actions.url', placeholder: 'http://plug.local/relay/0?turn=on' },
  { name: 'method', label: 'actions.method', kind: 'select', options: ['GET', 'POST', 'PUT', 'DELETE'] },
  { name: 'headers', label: 'actions.headers', kind: 'textarea' },
  { name: 'payload', label: 'actions.payload', kind: 'textarea', placeholder: '{"on":true,"p":${2_7_0}}' },
  { name: 'timeout', label: 'actions.timeout', kind: 'number' },
];

const MODBUS_FIELDS: Field[] = [
  { name: 'host', label: 'actions.host' },
  { name: 'port', label: 'settings.port', kind: 'number', placeholder: '502' },
  { name: 'unit_id', label: 'settings.unit_id', kind: 'number', placeholder: '1' },
  { name: 'func', label: 'actions.function', kind: 'select', options: ['5', '6', '15', '16'] },
  { name: 'address', label: 'settings.address', kind: 'number' },
  {
    name: 'type',
    label: 'modbus.type',
    kind: 'select',
    options: ['short', 'hex', 'int', 'long', 'float', 'double'],
  },
  { name: 'value', label: 'actions.value' },
  { name: 'timeout', label: 'actions.timeout', kind: 'number' },
];

function control(field: Field, value: unknown): HTMLElement {
  const label = document.createElement('label');
  label.textContent = t(field.label);
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  if (field.kind === 'select') {
    input = document.createElement('select');
    for (const option of field.options ?? []) input.add(new Option(option, option));
  } else if (field.kind === 'textarea') {
    input = document.createElement('textarea');
    input.rows = 2;
  } else {
    input = document.createElement('input');
    input.type = field.kind === 'number' ? 'number' : 'text';
    if (field.kind === 'number') input.step = 'any';
  }
  input.dataset.field = field.name;
  if (field.placeholder && !(input instanceof HTMLSelectElement)) input.placeholder = field.placeholder;
  if (value !== undefined && value !== null) input.value = String(value);
  label.append(input);
  return label;
}

/** A fieldset editing one request; `remove` takes it out of the list. */
export function requestEditor(request: ActionRequest): HTMLFieldSetElement {
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
  for (const field of kind === 'http' ? HTTP_FIELDS : MODBUS_FIELDS)
    fieldset.append(control(field, values[field.name]));
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.textContent = t('actions.remove_request');
  remove.addEventListener('click', () => fieldset.remove());
  fieldset.append(remove);
  return fieldset;
}

function headersOf(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (line.trim() === '' || colon < 1) continue;
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
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
  put(http, 'payload', read.payload);
  put(http, 'timeout', number('timeout'));
  return { http: http as ActionRequest['http'] & object };
}
