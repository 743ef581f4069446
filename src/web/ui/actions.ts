import type { ActionDefinition, ActionsDefinition, ActionsDefinitionView } from '../../contracts/actions.js';
import type { ActionsChoices } from '../../contracts/page.js';
import { ConstantsEditor } from './action-constants.js';
import { actionIssues, constantIssues } from './action-checks.js';
import { controlFinder } from './action-issues.js';
import { requestEditor, requestOf, type PickerGroup, type RequestContext } from './action-requests.js';
import { renderActionList, renderResults, runAction } from './action-list.js';
import { describeRun } from './action-result.js';
import { TriggerEditor } from './action-trigger.js';
import { api, ApiError, element } from './api.js';
import type { FieldIssue } from './fields.js';
import { clearIssues, placeIssues, setStatus } from './forms.js';
import { t } from './i18n/i18n.js';
import { quantityName } from './quantity-names.js';

/**
 * The Actions page (GET .../definition, POST /api/v1/actions, POST /api/v1/actions/call, GET
 * .../status and .../recent): the list of actions with "Run now", a form for one action built from the server's
 * choices (schedule presets, a condition on a measured value, HTTP and Modbus requests with a value
 * picker), the constants as rows, and the last results. Saving posts the whole definition, as the
 * API takes it; messages (the form's checks and the server's 400 details) appear next to the field.
 * GET .../definition answers null while no definition is set (the device's GET answers 404 then).
 */

class ActionsPage {
  private readonly form = element<HTMLFormElement>('form-action');
  private readonly list = element<HTMLTableSectionElement>('actions-list');
  private readonly results = element<HTMLTableSectionElement>('actions-results');
  private readonly requests = element('action-requests');
  private readonly card = element('actions-card');
  private readonly constBox = element('actions-const');
  private readonly runResult = element<HTMLOutputElement>('action-run-result');
  private definition: ActionsDefinition = { const: {}, actions: [] };
  private editing: string | undefined;
  private variables: string[] = [];

  constructor(
    private readonly choices: ActionsChoices,
    private readonly trigger: TriggerEditor,
    private readonly constants: ConstantsEditor,
  ) {}

  private get context(): RequestContext {
    return { choices: this.choices, pickerGroups: () => this.pickerGroups() };
  }

  bind(): void {
    this.form.noValidate = true;
    const limits = this.choices.limits;
    this.input('id').maxLength = limits.idLength;
    Object.assign(this.input('min_interval'), { min: '0', max: String(limits.minIntervalSeconds) });
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.saveAction();
    });
    element('action-delete').addEventListener('click', () => this.deleteAction());
    element('action-new').addEventListener('click', () => this.edit(undefined));
    element('action-add-http').addEventListener('click', () =>
      this.requests.append(requestEditor({ http: { url: '' } }, this.context)),
    );
    element('action-add-modbus').addEventListener('click', () =>
      this.requests.append(
        requestEditor({ modbus: { host: '', func: 6, address: 0, value: '' } }, this.context),
      ),
    );
    element('action-run').addEventListener('click', () => void this.runFromForm());
    element('actions-const-save').addEventListener('click', () => void this.saveConstants());
    this.edit(undefined);
  }

  async load(): Promise<void> {
    try {
      this.definition = await this.readDefinition();
      this.constants.set(this.definition.const);
      this.renderList();
      await this.refreshResults();
      setStatus(this.card, '');
    } catch (error) {
      const license = error instanceof ApiError && error.key === 'license_required';
      setStatus(this.card, license ? t('actions.needs_license') : (error as Error).message, 'error');
    }
    if (this.variables.length === 0) {
      const pairs = await api<Array<Record<string, string>>>('GET', '/api/v1/variables').catch(() => []);
      this.variables = pairs.flatMap((pair) => Object.keys(pair));
    }
  }

  /** The stored definition, an empty one while none is set (the page's route never answers 404 for it). */
  private async readDefinition(): Promise<ActionsDefinition> {
    const { definition } = await api<ActionsDefinitionView>('GET', '/api/v1/actions/definition');
    return definition ?? { const: {}, actions: [] };
  }

  private pickerGroups(): PickerGroup[] {
    const quantities = this.choices.quantities.map((q): [string, string] => [
      q.name,
      `${quantityName(q.label)} (${q.unit})`,
    ]);
    const known = new Set(quantities.map(([name]) => name));
    return [
      { title: t('action_form.measured_values'), entries: quantities },
      {
        title: t('actions.constants'),
        entries: this.constants.names().map((name) => [`const.${name}`, name]),
      },
      {
        title: t('action_form.other_variables'),
        entries: this.variables.filter((name) => !known.has(name)).map((name) => [name, name]),
      },
    ];
  }

  private input(name: string): HTMLInputElement {
    return this.form.querySelector<HTMLInputElement>(`[name="${name}"]`)!;
  }

  private edit(action: ActionDefinition | undefined): void {
    this.editing = action?.id;
    this.input('id').value = action?.id ?? '';
    this.input('enable').checked = action?.enable !== false;
    this.input('min_interval').value = String(action?.min_interval ?? '');
    this.trigger.set(action);
    this.requests.replaceChildren(
      ...(action?.requests ?? []).map((request) => requestEditor(request, this.context)),
    );
    this.runResult.textContent = '';
    clearIssues(this.form);
    setStatus(this.form, '');
  }

  private actionOfForm(): ActionDefinition {
    const action: ActionDefinition = {
      id: this.input('id').value.trim(),
      enable: this.input('enable').checked,
    };
    Object.assign(action, this.trigger.read());
    const interval = this.input('min_interval').value.trim();
    if (interval) action.min_interval = Number(interval);
    const editors = this.requests.querySelectorAll<HTMLFieldSetElement>('fieldset.action-request');
    action.requests = [...editors].map(requestOf);
    return action;
  }

  private renderList(): void {
    renderActionList(
      this.list,
      this.definition.actions ?? [],
      (id) => void this.runNow(id, this.card),
      (action) => this.edit(action),
    );
  }

  private async refreshResults(): Promise<void> {
    await renderResults(this.results, this.choices);
  }

  /** Calls the action, follows its status until it is no longer running, and shows the result. */
  private async runNow(id: string, where: HTMLElement, output?: HTMLOutputElement): Promise<void> {
    const show = (text: string, kind: 'ok' | 'error' | 'busy') => {
      setStatus(where, `${id}: ${text}`, kind);
      if (output) Object.assign(output, { textContent: text, className: `form-status ${kind}` });
    };
    show(t('action_form.running'), 'busy');
    try {
      const record = await runAction(id, this.choices);
      const result = record ? describeRun(record, this.choices) : { ok: false, text: '' };
      show(result.text, result.ok ? 'ok' : 'error');
      if (output && record) output.dataset.code = String(record.code);
      await this.refreshResults();
    } catch (error) {
      show((error as Error).message, 'error');
    }
  }

  private async runFromForm(): Promise<void> {
    const stored = (this.definition.actions ?? []).find((action) => action.id === this.editing);
    const unchanged = stored && JSON.stringify(this.actionOfForm()) === JSON.stringify(stored);
    if (!unchanged && !(await this.saveAction())) {
      this.runResult.textContent = t('action_form.unsaved');
      return;
    }
    await this.runNow(this.editing!, this.form, this.runResult);
  }

  /** Shows issues next to their fields (the edited action's index names them); the rest in the status. */
  private showIssues(
    issues: readonly FieldIssue[],
    index: number,
    fallback: string,
    fromServer = false,
  ): void {
    clearIssues(this.form);
    clearIssues(this.constBox);
    const find = controlFinder(this.form, this.constBox, index, () => this.trigger.scheduleControl());
    const unplaced = placeIssues(issues, find, { fromServer });
    const rest = unplaced.map((issue) => `${issue.field}: ${issue.message}`);
    setStatus(
      this.form,
      rest.length === 0 ? t('action_check.fix') : [fallback, ...rest].join(' — '),
      'error',
    );
  }

  /** Posts the whole definition; true when stored. */
  private async save(next: ActionsDefinition, index: number, local: FieldIssue[]): Promise<boolean> {
    if (local.length > 0) {
      this.showIssues(local, index, '');
      return false;
    }
    setStatus(this.form, t('common.saving'), 'busy');
    try {
      this.definition = await api<ActionsDefinition>('POST', '/api/v1/actions', next);
      this.renderList();
      clearIssues(this.form);
      clearIssues(this.constBox);
      setStatus(this.form, t('common.saved'));
      return true;
    } catch (error) {
      if (error instanceof ApiError) this.showIssues(error.fields, index, error.message, true);
      else setStatus(this.form, (error as Error).message, 'error');
      return false;
    }
  }

  /** The form's action in place of the one it edits (or appended), and the constants rows, saved. */
  private async saveAction(): Promise<boolean> {
    const action = this.actionOfForm();
    const stored = this.definition.actions ?? [];
    const at = stored.findIndex((entry) => entry.id === this.editing);
    const actions = stored.filter((entry) => entry.id !== (this.editing ?? action.id));
    const index = at < 0 ? actions.length : at;
    actions.splice(index, 0, action);
    const constants = this.constants.read();
    const local = [
      ...actionIssues(action, index, this.choices),
      ...constantIssues(this.constants.names(), constants, this.choices),
    ];
    const saved = await this.save({ const: constants, actions }, index, local);
    if (saved) this.editing = action.id;
    return saved;
  }

  private deleteAction(): void {
    const id = this.editing;
    if (id === undefined || !confirm(t('actions.confirm_delete', { id }))) return;
    const actions = (this.definition.actions ?? []).filter((entry) => entry.id !== id);
    void this.save({ ...this.definition, actions }, -1, []).then(() => this.edit(undefined));
  }

  private async saveConstants(): Promise<void> {
    const constants = this.constants.read();
    const local = constantIssues(this.constants.names(), constants, this.choices);
    await this.save({ ...this.definition, const: constants }, -1, local);
  }
}

/** Binds the page's controls once the server's choices arrived; returns its loader. */
export function bindActions(): () => Promise<void> {
  let page: Promise<ActionsPage> | undefined;
  const ready = async (): Promise<ActionsPage> => {
    const choices = await api<ActionsChoices>('GET', '/api/v1/actions/choices');
    const made = new ActionsPage(
      choices,
      new TriggerEditor(element('action-trigger'), choices),
      new ConstantsEditor(element('actions-const')),
    );
    made.bind();
    return made;
  };
  return async () => {
    // A failed start (the choices request refused) is not kept: the next visit tries again.
    page ??= ready().catch((error: unknown) => {
      page = undefined;
      throw error;
    });
    await (await page).load();
  };
}
