import type { ModbusTableView } from '../../contracts/modbus-table.js';
import { api, ApiError, element } from './api.js';
import { clearIssues, issueText, setStatus, showFailure } from './forms.js';
import { t, tOr, tServer, type MessageKey } from './i18n/i18n.js';

const hex = (address: number): string => `0x${address.toString(16).toUpperCase().padStart(4, '0')}`;

/** The served layout as a table: one row per register, sets introduced by their start and word order. */
function showTable(table: HTMLTableElement, view: ModbusTableView): void {
  const head = table.createTHead();
  head.replaceChildren();
  const titles: MessageKey[] = [
    'settings.address',
    'modbus.hex',
    'common.name',
    'modbus.unit',
    'modbus.type',
    'modbus.scale',
    'common.id',
  ];
  const headRow = head.insertRow();
  for (const title of titles)
    headRow.append(Object.assign(document.createElement('th'), { textContent: t(title), scope: 'col' }));
  for (const body of [...table.tBodies]) body.remove();
  for (const set of view.sets) {
    const body = table.createTBody();
    const caption = body.insertRow().insertCell();
    caption.colSpan = titles.length;
    caption.className = 'muted';
    caption.textContent = t('modbus.set_caption', {
      start: set.start_address,
      hex: hex(set.start_address),
      order: set.word_order,
    });
    for (const row of set.rows) {
      const line = body.insertRow();
      line.dataset.id = row.id;
      const scale = row.type === 'padding' || row.type === 'bytes' ? '' : `×10^${row.scaler}`;
      // Name and type in the page's language: the name by its key, the type by its layout token.
      const name = tServer(row.name, row.name_key, row.name_args);
      const type = tOr(`modbus.type.${row.type}`, row.type);
      const texts = [String(row.address), hex(row.address), name, row.unit, type, scale, row.id];
      // data-label: the column's title, which a phone shows before the value (style.css reflows rows).
      texts.forEach((text, column) =>
        Object.assign(line.insertCell(), { textContent: text }).setAttribute(
          'data-label',
          t(titles[column]!),
        ),
      );
      // The register's id is the layout's own (the device specification's term), so is a name without key.
      line.cells[2]!.translate = row.name_key !== undefined && name !== row.name;
      line.cells[6]!.translate = false;
    }
  }
}

/**
 * The Modbus layout page: the served layout as a table (GET /api/v1/modbus/table, which also says
 * whether a custom layout is set, so the page never asks for a layout that is not there) and as
 * JSON (GET /api/v1/modbus, or /api/v1/modbus/default), saved with POST, reset with DELETE, the
 * address view with ?address_format=hex. The layout validator's issues are listed under the editor.
 */
export function bindModbus(): () => Promise<void> {
  const form = element<HTMLFormElement>('form-modbus');
  const editor = form.querySelector<HTMLTextAreaElement>('textarea[name=layout]')!;
  const issues = element('modbus-issues');
  const detail = element('modbus-detail');
  const state = element('modbus-state');
  const table = element<HTMLTableElement>('modbus-table');

  const showIssues = (error: unknown) => {
    showFailure(form, error);
    issues.replaceChildren();
    if (!(error instanceof ApiError)) return;
    for (const issue of error.fields) {
      const item = document.createElement('li');
      item.textContent = `${issue.field ? `${issue.field}: ` : ''}${issueText(issue)}`;
      issues.append(item);
    }
    if (error.fields.length > 0) setStatus(form, error.text, 'error');
  };

  let usingDefault = false;
  const load = async () => {
    clearIssues(form);
    issues.replaceChildren();
    detail.hidden = true;
    try {
      const view = await api<ModbusTableView>('GET', '/api/v1/modbus/table');
      usingDefault = view.source === 'default';
      const layout = await api<unknown>('GET', usingDefault ? '/api/v1/modbus/default' : '/api/v1/modbus');
      editor.value = JSON.stringify(layout, null, 2);
      showTable(table, view);
      state.textContent = t(usingDefault ? 'modbus.default_in_use' : 'modbus.custom_in_use');
      setStatus(form, '');
    } catch (error) {
      showFailure(form, error);
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    let layout: unknown;
    try {
      layout = JSON.parse(editor.value);
    } catch (error) {
      issues.replaceChildren();
      setStatus(form, t('modbus.not_json', { message: (error as Error).message }), 'error');
      return;
    }
    setStatus(form, t('common.saving'), 'busy');
    api<unknown>('POST', '/api/v1/modbus', layout)
      .then(() => load())
      .then(() => setStatus(form, t('common.saved')))
      .catch(showIssues);
  });
  element('modbus-reset').addEventListener('click', () => {
    if (!confirm(t('modbus.confirm_reset'))) return;
    api('DELETE', '/api/v1/modbus')
      .then(() => load())
      .then(() => setStatus(form, t('modbus.reset_done')))
      .catch(showIssues);
  });
  element('modbus-addresses').addEventListener('click', () => {
    api<unknown>('GET', `/api/v1/modbus${usingDefault ? '/default' : ''}?address_format=hex`)
      .then((layout) => {
        detail.textContent = JSON.stringify(layout, null, 2);
        detail.hidden = false;
      })
      .catch(showIssues);
  });
  return load;
}
