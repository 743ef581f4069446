import type { ControlFinder } from './forms.js';

/**
 * Where every message of the Actions form goes, the form's own (action-checks.ts) or the server's
 * 400 `details` (placed by forms.ts): the control of the field it names
 * (`actions[2].requests[0].http.url`, `const.token`).
 */

/** Finds the control an issue's field names; `schedule` asks the trigger editor which one shows. */
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
