import type {
  ActionDefinition,
  ActionsDefinition,
  ActionsRecent,
  ActionStatusRecord,
} from '../../actions/actions-api.js';
import { requestEditor, requestOf } from './action-requests.js';
import { api, ApiError, element } from './api.js';
import { setStatus } from './forms.js';
import { t, type MessageKey } from './i18n/i18n.js';

/**
 * The Actions page (GET/POST /api/v1/actions, POST /api/v1/actions/call, GET .../status and
 * .../recent): the list of actions with "Run now", a form for one action (triggers and requests),
 * the constants, and the last results. Saving posts the whole definition, as the API takes it.
 */

/** Pause between two looks at a running action's status. */
const RUN_POLL_MS = 250;

function cell(row: HTMLTableRowElement, text: string): void {
  row.insertCell().textContent = text;
}

function triggerText(action: ActionDefinition): string {
  const parts: string[] = [];
  if (action.schedule) parts.push(t('actions.trigger_schedule', { cron: action.schedule }));
  const when = action.when;
  if (when) {
    const threshold = when.above !== undefined ? `> ${when.above}` : `< ${when.below}`;
    parts.push(t('actions.trigger_when', { value: when.value, threshold, seconds: when.for ?? 0 }));
  }
  return parts.join('; ') || t('actions.call_only');
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

function button(label: MessageKey, onClick: () => void): HTMLButtonElement {
  const made = document.createElement('button');
  made.type = 'button';
  made.textContent = t(label);
  made.addEventListener('click', onClick);
  return made;
}

class ActionsPage {
  private readonly form = element<HTMLFormElement>('form-action');
  private readonly list = element<HTMLTableSectionElement>('actions-list');
  private readonly results = element<HTMLTableSectionElement>('actions-results');
  private readonly requests = element('action-requests');
  private readonly constants = element<HTMLTextAreaElement>('actions-const');
  private readonly card = element('actions-card');
  private definition: ActionsDefinition = { const: {}, actions: [] };
  /** Id of the stored action the form edits; undefined for a new one. */
  private editing: string | undefined;

  bind(): void {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.saveAction();
    });
    element('action-delete').addEventListener('click', () => this.deleteAction());
    element('action-new').addEventListener('click', () => this.edit(undefined));
    element('action-add-http').addEventListener('click', () =>
      this.requests.append(requestEditor({ http: { url: '' } })),
    );
    element('action-add-modbus').addEventListener('click', () =>
      this.requests.append(requestEditor({ modbus: { host: '', func: 6, address: 0, value: '' } })),
    );
    element('actions-const-save').addEventListener('click', () => this.saveConstants());
    this.edit(undefined);
  }

  async load(): Promise<void> {
    try {
      this.definition = await api<ActionsDefinition>('GET', '/api/v1/actions');
      this.constants.value = JSON.stringify(this.definition.const ?? {}, null, 2);
      this.renderList();
      await this.refreshResults();
      setStatus(this.card, '');
    } catch (error) {
      const needsLicense = error instanceof ApiError && error.status === 404;
      const text = needsLicense ? t('actions.needs_license') : (error as Error).message;
      setStatus(this.card, text, 'error');
    }
  }

  private input(name: string): HTMLInputElement & HTMLSelectElement {
    return this.form.querySelector<HTMLInputElement & HTMLSelectElement>(`[name="${name}"]`)!;
  }

  private edit(action: ActionDefinition | undefined): void {
    this.editing = action?.id;
    const when = action?.when;
    this.input('id').value = action?.id ?? '';
    this.input('enable').checked = action?.enable !== false;
    this.input('schedule').value = action?.schedule ?? '';
    this.input('when.value').value = when?.value ?? '';
    this.input('when.kind').value = when?.below !== undefined ? 'below' : 'above';
    this.input('when.threshold').value = String(when?.above ?? when?.below ?? '');
    this.input('when.for').value = String(when?.for ?? '');
    this.input('min_interval').value = String(action?.min_interval ?? '');
    this.requests.replaceChildren(...(action?.requests ?? []).map(requestEditor));
    setStatus(this.form, '');
  }

  private actionOfForm(): ActionDefinition {
    const text = (name: string) => this.input(name).value.trim();
    const action: ActionDefinition = { id: text('id'), enable: this.input('enable').checked };
    if (text('schedule')) action.schedule = text('schedule');
    if (text('when.value')) {
      const threshold = Number(text('when.threshold'));
      action.when = {
        value: text('when.value'),
        [text('when.kind')]: threshold,
        for: Number(text('when.for') || 0),
      };
    }
    if (text('min_interval')) action.min_interval = Number(text('min_interval'));
    const editors = this.requests.querySelectorAll<HTMLFieldSetElement>('fieldset.action-request');
    action.requests = [...editors].map(requestOf);
    return action;
  }

  private renderList(): void {
    this.list.replaceChildren();
    for (const action of this.definition.actions ?? []) {
      const row = this.list.insertRow();
      row.dataset.action = action.id;
      cell(row, action.id);
      cell(row, t(action.enable === false ? 'actions.off' : 'actions.on'));
      cell(row, triggerText(action));
      cell(row, requestsText(action));
      row.insertCell().append(
        button('actions.run_now', () => void this.runNow(action.id)),
        button('actions.edit', () => this.edit(action)),
      );
    }
  }

  private async refreshResults(): Promise<void> {
    const recent = await api<ActionsRecent>('GET', '/api/v1/actions/recent');
    this.results.replaceChildren();
    for (const status of recent.statuses) {
      const row = this.results.insertRow();
      for (const text of [String(status.id), status.action_id, String(status.code), `${status.exe_time} s`])
        cell(row, text);
    }
  }

  /** Calls the action, follows its status until it has a code, and shows it. */
  private async runNow(id: string): Promise<void> {
    setStatus(this.card, t('actions.running', { id }), 'busy');
    try {
      const path = `/api/v1/actions/call?id=${encodeURIComponent(id)}`;
      const { status_ids: ids } = await api<{ status_ids: number[] }>('POST', path);
      let record: ActionStatusRecord | undefined;
      do {
        await new Promise((resolve) => setTimeout(resolve, RUN_POLL_MS));
        [record] = await api<ActionStatusRecord[]>('GET', `/api/v1/actions/status?id=${ids.join(',')}`);
      } while (record && record.code === -1);
      const ok = record !== undefined && record.code >= 0 && record.code < 300;
      setStatus(
        this.card,
        t('actions.result', { id, code: String(record?.code), seconds: String(record?.exe_time) }),
        ok ? 'ok' : 'error',
      );
      await this.refreshResults();
    } catch (error) {
      setStatus(this.card, t('actions.failed', { id, message: (error as Error).message }), 'error');
    }
  }

  private async save(next: ActionsDefinition): Promise<void> {
    setStatus(this.form, t('common.saving'), 'busy');
    try {
      this.definition = await api<ActionsDefinition>('POST', '/api/v1/actions', next);
      this.renderList();
      setStatus(this.form, t('common.saved'));
    } catch (error) {
      const fields =
        error instanceof ApiError ? error.fields.map((issue) => `${issue.field}: ${issue.message}`) : [];
      setStatus(this.form, [(error as Error).message, ...fields].join(' — '), 'error');
    }
  }

  /** The form's action in place of the one it edits (or appended), then the whole definition saved. */
  private saveAction(): void {
    const action = this.actionOfForm();
    const stored = this.definition.actions ?? [];
    const at = stored.findIndex((entry) => entry.id === this.editing);
    const actions = stored.filter((entry) => entry.id !== (this.editing ?? action.id));
    actions.splice(at < 0 ? actions.length : at, 0, action);
    this.editing = action.id;
    void this.save({ ...this.definition, actions });
  }

  private deleteAction(): void {
    const id = this.editing;
    if (id === undefined || !confirm(t('actions.confirm_delete', { id }))) return;
    const actions = (this.definition.actions ?? []).filter((entry) => entry.id !== id);
    void this.save({ ...this.definition, actions }).then(() => this.edit(undefined));
  }

  private saveConstants(): void {
    let constants: ActionsDefinition['const'];
    try {
      constants = JSON.parse(this.constants.value || '{}') as ActionsDefinition['const'];
    } catch (error) {
      setStatus(this.form, t('actions.constants_not_json', { message: (error as Error).message }), 'error');
      return;
    }
    void this.save({ ...this.definition, const: constants });
  }
}

/** Binds the page's controls; returns its loader (called each time the page is shown). */
export function bindActions(): () => Promise<void> {
  const page = new ActionsPage();
  page.bind();
  return () => page.load();
}
