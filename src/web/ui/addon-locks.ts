/*
 * Settings the Home Assistant add-on's options lock (GET /api/v1/system access.locked): their
 * fields are disabled and marked, so the page never offers a change the API refuses with 409.
 */
import { configPath } from './fields.js';
import { t } from './i18n/i18n.js';

/** Disables and marks every settings field whose config path is locked. */
export function markLocked(locked: readonly string[]): void {
  if (locked.length === 0) return;
  const paths = new Set(locked);
  for (const form of document.querySelectorAll<HTMLFormElement>('form[data-strip]')) {
    const strip = form.dataset.strip ?? '';
    const controls = form.querySelectorAll<HTMLInputElement>('input[name], select[name], textarea[name]');
    for (const control of controls) {
      if (!paths.has(configPath(strip, control.name)) || control.disabled) continue;
      control.disabled = true;
      control.title = t('settings.locked_title');
      const note = document.createElement('small');
      note.className = 'locked-note muted';
      note.textContent = ` (${t('settings.locked')})`;
      (control.closest('label') ?? control).after(note);
    }
  }
}
