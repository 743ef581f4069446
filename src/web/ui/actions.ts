import type {
  ActionDefinition,
  ActionsDefinition,
  ActionsRecent,
  ActionStatusRecord,
} from '../../actions/actions-api.js';
import { requestEditor, requestOf } from './action-requests.js';
import { api, ApiError, element } from './api.js';
import { setStatus } from './forms.js';

/**
 * The Actions page (GET/POST /api/v1/actions, POST /api/v1/actions/call, GET .../status and
 * .../recent): the list of actions with "Run now", a form for one action (triggers and requests),
 * the constants, and the last results. Saving posts the whole definition, as the API takes it.
 */

/** How long "Run now" keeps asking for the final code. */
const RUN_POLL_MS = 250;

function cell(row: HTMLTableRowElement, text: string): HTMLTableCellElement {
  const td = row.insertCell();
  td.textContent = text;
  return td;
}

function triggerText(action: ActionDefinition): string {
  const parts: string[] = [];
  if (action.schedule) parts.push(`schedule ${action.schedule}`);
  const when = action.when;
  if (when)
    parts.push(
      `when ${when.value} ${when.above !== undefined ? `> ${when.above}` : `< ${when.below}`} for ${when.for ?? 0} s`,
    );
  return parts.join('; ') || 'call only';
}

function requestsText(action: ActionDefinition): string {
  return (action.requests ?? [])
    .map((request) =>
      request.http
        ? `${request.http.method ?? 'GET'} ${request.http.url}`
        : `FC ${request.modbus!.func} ${request.modbus!.host}:${request.modbus!.address}`,
    )
    .join(', ');
}

export function bindActions(): () => Promise<void> {
  const form = element<HTMLFormElement>('form-action');
  const list = element<HTMLTableSectionElement>('actions-list');
  const results = element<HTMLTableSectionElement>('actions-results');
  const requests = element('action-requests');
  const constants = element<HTMLTextAreaElement>('actions-const');
  const pageStatus = element('actions-card');
  let definition: ActionsDefinition = { const: {}, actions: [] };
  let editing: string | undefined;

  const input = (name: string) =>
    form.querySelector<HTMLInputElement & HTMLSelectElement>(`[name="${name}"]`)!;

  const edit = (action: ActionDefinition | undefined) => {
    editing = action?.id;
    input('id').value = action?.id ?? '';
    input('enable').checked = action?.enable !== false;
    input('schedule').value = action?.schedule ?? '';
    input('when.value').value = action?.when?.value ?? '';
    input('when.kind').value = action?.when?.below !== undefined ? 'below' : 'above';
    input('when.threshold').value = String(action?.when?.above ?? action?.when?.below ?? '');
    input('when.for').value = String(action?.when?.for ?? '');
    input('min_interval').value = String(action?.min_interval ?? '');
    requests.replaceChildren(...(action?.requests ?? []).map(requestEditor));
    setStatus(form, '');
  };

  const actionOfForm = (): ActionDefinition => {
    const action: ActionDefinition = { id: input('id').value.trim(), enable: input('enable').checked };
    if (input('schedule').value.trim()) action.schedule = input('schedule').value.trim();
    const quantity = input('when.value').value.trim();
    if (quantity) {
      const threshold = Number(input('when.threshold').value);
      action.when = {
        value: quantity,
        [input('when.kind').value]: threshold,
        for: Number(input('when.for').value || 0),
      };
    }
    if (input('min_interval').value.trim()) action.min_interval = Number(input('min_interval').value);
    action.requests = [...requests.querySelectorAll<HTMLFieldSetElement>('fieldset.action-request')].map(
      requestOf,
    );
    return action;
  };

  const renderList = () => {
    list.replaceChildren();
    for (const action of definition.actions ?? []) {
      const row = list.insertRow();
      row.dataset.action = action.id;
      cell(row, action.id);
      cell(row, action.enable === false ? 'off' : 'on');
      cell(row, triggerText(action));
      cell(row, requestsText(action));
      const buttons = row.insertCell();
      for (const [label, handler] of [
        ['Run now', () => void runNow(action.id)],
        ['Edit', () => edit(action)],
      ] as const) {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = label;
        button.addEventListener('click', handler);
        buttons.append(button);
      }
    }
  };

  const renderResults = (recent: ActionsRecent) => {
    results.replaceChildren();
    for (const status of recent.statuses) {
      const row = results.insertRow();
      for (const text of [String(status.id), status.action_id, String(status.code), `${status.exe_time} s`])
        cell(row, text);
    }
  };

  const load = async () => {
    try {
      definition = await api<ActionsDefinition>('GET', '/api/v1/actions');
      constants.value = JSON.stringify(definition.const ?? {}, null, 2);
      renderList();
      renderResults(await api<ActionsRecent>('GET', '/api/v1/actions/recent'));
      setStatus(pageStatus, '');
    } catch (error) {
      const needsLicense = error instanceof ApiError && error.status === 404;
      setStatus(
        pageStatus,
        needsLicense ? 'Actions need a PLUS or PRO license.' : (error as Error).message,
        'error',
      );
    }
  };

  const runNow = async (id: string) => {
    setStatus(pageStatus, `Running ${id}…`, 'busy');
    try {
      const { status_ids: ids } = await api<{ status_ids: number[] }>(
        'POST',
        `/api/v1/actions/call?id=${encodeURIComponent(id)}`,
      );
      let record: ActionStatusRecord | undefined;
      do {
        await new Promise((resolve) => setTimeout(resolve, RUN_POLL_MS));
        [record] = await api<ActionStatusRecord[]>('GET', `/api/v1/actions/status?id=${ids.join(',')}`);
      } while (record && record.code === -1);
      setStatus(
        pageStatus,
        `Action ${id}: code ${record?.code} in ${record?.exe_time} s`,
        record && record.code >= 0 && record.code < 300 ? 'ok' : 'error',
      );
      renderResults(await api<ActionsRecent>('GET', '/api/v1/actions/recent'));
    } catch (error) {
      setStatus(pageStatus, `Action ${id}: ${(error as Error).message}`, 'error');
    }
  };

  const save = async (next: ActionsDefinition) => {
    setStatus(form, 'Saving…', 'busy');
    try {
      definition = await api<ActionsDefinition>('POST', '/api/v1/actions', next);
      renderList();
      setStatus(form, 'Saved.');
    } catch (error) {
      const fields =
        error instanceof ApiError ? error.fields.map((issue) => `${issue.field}: ${issue.message}`) : [];
      setStatus(form, [(error as Error).message, ...fields].join(' — '), 'error');
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const action = actionOfForm();
    const others = (definition.actions ?? []).filter((entry) => entry.id !== (editing ?? action.id));
    const at = (definition.actions ?? []).findIndex((entry) => entry.id === editing);
    const actions = [...others];
    actions.splice(at < 0 ? actions.length : at, 0, action);
    editing = action.id;
    void save({ ...definition, actions });
  });
  element('action-delete').addEventListener('click', () => {
    if (editing === undefined || !confirm(`Delete action ${editing}?`)) return;
    const actions = (definition.actions ?? []).filter((entry) => entry.id !== editing);
    void save({ ...definition, actions }).then(() => edit(undefined));
  });
  element('action-new').addEventListener('click', () => edit(undefined));
  element('action-add-http').addEventListener('click', () =>
    requests.append(requestEditor({ http: { url: '' } })),
  );
  element('action-add-modbus').addEventListener('click', () =>
    requests.append(requestEditor({ modbus: { host: '', func: 6, address: 0, value: '' } })),
  );
  element('actions-const-save').addEventListener('click', () => {
    try {
      void save({ ...definition, const: JSON.parse(constants.value || '{}') as ActionsDefinition['const'] });
    } catch (error) {
      setStatus(form, `Constants are not valid JSON: ${(error as Error).message}`, 'error');
    }
  });
  edit(undefined);
  return load;
}
