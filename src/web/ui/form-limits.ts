import type { SettingLimits, SettingsLimits } from '../../contracts/page.js';
import { api } from './api.js';
import { configPath } from './fields.js';
import { showFailure } from './forms.js';

/**
 * The settings forms' limits (min, max, step, length, pattern) come from the config schema through
 * GET /api/v1/settings/limits, never typed again in the HTML (docs/architecture.md#api-contracts).
 */

/** Applies a schema limit to a control (min, max, step, length, pattern). */
export function applyLimits(
  control: HTMLInputElement | HTMLTextAreaElement,
  limits: SettingLimits | undefined,
): void {
  if (!limits) return;
  if (limits.maxLength !== undefined) control.maxLength = limits.maxLength;
  if (limits.minLength !== undefined) control.minLength = limits.minLength;
  if (!(control instanceof HTMLInputElement)) return;
  if (limits.min !== undefined) control.min = String(limits.min);
  if (limits.max !== undefined) control.max = String(limits.max);
  if (control.type === 'number') control.step = limits.step !== undefined ? String(limits.step) : 'any';
  if (limits.pattern !== undefined) control.pattern = limits.pattern;
}

/**
 * Puts every setting's limits on the controls of the settings forms (those with data-endpoint), by
 * the field's config path: the form's data-config prefix (else its data-strip) and the field's name.
 * A failed request is shown on the forms; the server checks every value anyway.
 */
export async function addLimits(): Promise<void> {
  const forms = [...document.querySelectorAll<HTMLFormElement>('form[data-endpoint]')];
  try {
    const limits = await api<SettingsLimits>('GET', '/api/v1/settings/limits');
    for (const form of forms) {
      const prefix = form.dataset.config ?? form.dataset.strip ?? '';
      for (const control of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
        'input[name], textarea[name]',
      ))
        applyLimits(control, limits[configPath(prefix, control.name)]);
    }
  } catch (error) {
    for (const form of forms) showFailure(form, error);
  }
}
