import type { ConstValue } from '../../contracts/actions.js';
import { buttonOf, selectOf, textInput } from './controls.js';
import { t } from './i18n/i18n.js';

const TYPES = ['text', 'number', 'boolean'] as const;

type ConstType = (typeof TYPES)[number];

/**
 * The constants of the actions definition as rows (name, type, value; add and remove), read back
 * into the definition's `const` object: text as a string, a number as a number, yes/no as a boolean.
 * Each row's controls carry `data-field="const.<name>"` so a message about the constant lands there.
 */
export class ConstantsEditor {
  private readonly rows = document.createElement('tbody');
  private readonly empty = document.createElement('p');

  constructor(container: HTMLElement) {
    const table = document.createElement('table');
    table.id = 'actions-const-rows';
    const head = table.createTHead().insertRow();
    for (const text of [t('common.name'), t('action_form.type'), t('actions.value'), ''])
      head.insertCell().textContent = text;
    table.append(this.rows);
    this.empty.className = 'muted';
    this.empty.textContent = t('action_form.no_constants');
    const add = buttonOf(t('action_form.add_constant'), () => this.addRow('', 'text', ''));
    add.id = 'actions-const-add';
    container.replaceChildren(table, this.empty, add);
  }

  set(constants: Record<string, ConstValue> | undefined): void {
    this.rows.replaceChildren();
    for (const [name, value] of Object.entries(constants ?? {})) {
      const type: ConstType =
        typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'text';
      this.addRow(name, type, value === null ? '' : String(value));
    }
    this.syncEmpty();
  }

  private syncEmpty(): void {
    this.empty.hidden = this.rows.rows.length > 0;
  }

  private addRow(name: string, type: ConstType, value: string): void {
    const row = this.rows.insertRow();
    row.className = 'const-row';
    const nameInput = textInput('const.name');
    nameInput.value = name;
    const typeSelect = selectOf(
      'const.type',
      TYPES.map((kind): [string, string] => [kind, t(`action_form.type_${kind}`)]),
    );
    typeSelect.value = type;
    const valueInput = textInput('const.value');
    const yesNo = selectOf('const.bool', [
      ['true', t('action_form.yes')],
      ['false', t('action_form.no')],
    ]);
    const sync = () => {
      valueInput.type = typeSelect.value === 'number' ? 'number' : 'text';
      valueInput.step = 'any';
      // The forms' display rules win over the hidden attribute.
      valueInput.style.display = typeSelect.value === 'boolean' ? 'none' : '';
      yesNo.style.display = typeSelect.value === 'boolean' ? '' : 'none';
      for (const control of [nameInput, valueInput, yesNo])
        control.dataset.field = `const.${nameInput.value.trim()}`;
    };
    valueInput.value = type === 'boolean' ? '' : value;
    yesNo.value = value === 'false' ? 'false' : 'true';
    typeSelect.addEventListener('change', sync);
    nameInput.addEventListener('input', sync);
    row.insertCell().append(nameInput);
    row.insertCell().append(typeSelect);
    row.insertCell().append(valueInput, yesNo);
    row.insertCell().append(
      buttonOf(t('action_form.remove'), () => {
        row.remove();
        this.syncEmpty();
      }),
    );
    sync();
    this.syncEmpty();
  }

  /** The rows as the definition's `const`; a row without a name is left out. */
  read(): Record<string, ConstValue> {
    const constants: Record<string, ConstValue> = {};
    for (const row of this.rows.rows) {
      const [name, type, value, yesNo] = ['const.name', 'const.type', 'const.value', 'const.bool'].map(
        (field) => row.querySelector<HTMLInputElement>(`[name="${field}"]`)!.value,
      );
      if (!name!.trim()) continue;
      constants[name!.trim()] =
        type === 'number'
          ? value!.trim() === ''
            ? Number.NaN
            : Number(value)
          : type === 'boolean'
            ? yesNo === 'true'
            : value!;
    }
    return constants;
  }

  /** Names of the rows (for the value picker and the client checks), duplicates included. */
  names(): string[] {
    return [...this.rows.rows]
      .map((row) => row.querySelector<HTMLInputElement>('[name="const.name"]')!.value.trim())
      .filter(Boolean);
  }
}
