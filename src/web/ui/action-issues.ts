import type { FieldIssue } from './fields.js';

/**
 * The placing of every message of the Actions form, the form's own (action-checks.ts) or the
 * server's 400 `details`, next to the field it names (`actions[2].requests[0].http.url`, `const.token`).
 */

/** Finds the control an issue's field names; `schedule` asks the trigger editor which one shows. */
export type ControlFinder = (field: string) => HTMLElement | null;

export function controlFinder(
  form: HTMLElement,
  constants: HTMLElement,
  index: number,
  schedule: () => HTMLElement,
): ControlFinder {
  const named = (name: string) => form.querySelector<HTMLElement>(`[name="${name}"]`);
  return (field) => {
    const constant = /^const\.(.*)$/.exec(field);
    if (constant)
      return constants.querySelector<HTMLElement>(`[data-field="const.${CSS.escape(constant[1]!)}"]`);
    const prefix = `actions[${index}]`;
    if (!field.startsWith(`${prefix}.`)) return null;
    const rest = field.slice(prefix.length + 1);
    const request = /^requests\[(\d+)\]\.(?:http|modbus)\.([a-z_]+)/.exec(rest);
    if (request) {
      const fieldset = form.querySelectorAll('fieldset.action-request')[Number(request[1])];
      return fieldset?.querySelector<HTMLElement>(`[data-field="${request[2]}"]`) ?? null;
    }
    if (rest === 'schedule') return schedule();
    if (rest === 'when' || rest === 'when.value') return named('when.value');
    if (rest === 'when.above' || rest === 'when.below') return named('when.threshold');
    return named(rest);
  };
}

export function clearFieldIssues(root: HTMLElement): void {
  for (const note of root.querySelectorAll('.field-error')) note.remove();
  for (const control of root.querySelectorAll('[aria-invalid]')) {
    control.removeAttribute('aria-invalid');
    control.classList.remove('invalid');
  }
}

/**
 * Puts each issue's message next to its control; returns the ones no control was found for. The
 * server's messages (`fromServer`) are its own English words, marked translate="no".
 */
export function placeIssues(
  issues: readonly FieldIssue[],
  find: ControlFinder,
  fromServer = false,
): FieldIssue[] {
  const unplaced: FieldIssue[] = [];
  for (const issue of issues) {
    const control = find(issue.field);
    if (!control) {
      unplaced.push(issue);
      continue;
    }
    control.setAttribute('aria-invalid', 'true');
    control.classList.add('invalid');
    const note = document.createElement('span');
    note.className = 'field-error';
    note.dataset.field = issue.field;
    note.textContent = issue.message;
    note.translate = !fromServer;
    control.insertAdjacentElement('afterend', note);
  }
  return unplaced;
}
