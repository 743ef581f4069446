import type { ActionDefinition, ActionsRecent, ActionStatusRecord } from '../../contracts/actions.js';
import type { ActionsChoices } from '../../contracts/page.js';
import { describeCode, isRunning, seconds } from './action-result.js';
import { api } from './api.js';
import { t } from './i18n/i18n.js';

/** The Actions page's tables (the actions, the last results) and the run of one action. */

/** Pause between two looks at a running action's status. */
const RUN_POLL_MS = 250;

export function cell(row: HTMLTableRowElement, text: string): void {
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
  const cheapest = action.cheapest;
  if (cheapest)
    parts.push(
      t(cheapest.inverse ? 'prices.trigger_dearest' : 'prices.trigger_cheapest', {
        quarters: cheapest.quarters,
        window: cheapest.window,
      }),
    );
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

export function button(label: string, onClick: () => void): HTMLButtonElement {
  const made = document.createElement('button');
  made.type = 'button';
  made.textContent = label;
  made.addEventListener('click', onClick);
  return made;
}

/** The list of actions with "Run now" and "Edit" per row ("No actions yet." when empty). */
export function renderActionList(
  list: HTMLTableSectionElement,
  actions: readonly ActionDefinition[],
  onRun: (id: string) => void,
  onEdit: (action: ActionDefinition) => void,
): void {
  list.replaceChildren();
  if (actions.length === 0) {
    const empty = list.insertRow().insertCell();
    empty.colSpan = 5;
    empty.className = 'muted';
    empty.textContent = t('action_form.no_actions');
  }
  for (const action of actions) {
    const row = list.insertRow();
    row.dataset.action = action.id;
    cell(row, action.id);
    cell(row, t(action.enable === false ? 'actions.off' : 'actions.on'));
    cell(row, triggerText(action));
    cell(row, requestsText(action));
    row.insertCell().append(
      button(t('actions.run_now'), () => onRun(action.id)),
      button(t('actions.edit'), () => onEdit(action)),
    );
  }
}

/** The last results (GET /api/v1/actions/recent), codes in words. */
export async function renderResults(
  results: HTMLTableSectionElement,
  choices: ActionsChoices,
): Promise<void> {
  const recent = await api<ActionsRecent>('GET', '/api/v1/actions/recent');
  results.replaceChildren();
  for (const status of recent.statuses) {
    const row = results.insertRow();
    const { text } = describeCode(status.code, choices);
    for (const part of [String(status.id), status.action_id, text, seconds(status.exe_time)]) cell(row, part);
  }
}

/** Calls the action and follows its status until it is no longer running. */
export async function runAction(
  id: string,
  choices: ActionsChoices,
): Promise<ActionStatusRecord | undefined> {
  const path = `/api/v1/actions/call?id=${encodeURIComponent(id)}`;
  const { status_ids: ids } = await api<{ status_ids: number[] }>('POST', path);
  let record: ActionStatusRecord | undefined;
  do {
    await new Promise((resolve) => setTimeout(resolve, RUN_POLL_MS));
    [record] = await api<ActionStatusRecord[]>('GET', `/api/v1/actions/status?id=${ids.join(',')}`);
  } while (isRunning(record, choices));
  return record;
}
