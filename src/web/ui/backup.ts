import type { SettingsBackup } from '../../http/status-views.js';
import { api, ApiError, element, pageRelative } from './api.js';

/**
 * The settings backup on the maintenance tab: a download link (secrets only when ticked, and the
 * file name says so) and a restore from such a file, all or nothing.
 */
export function bindBackup(): void {
  const secrets = element<HTMLInputElement>('backup-secrets');
  const link = element<HTMLAnchorElement>('backup-download');
  const status = element('backup-status');
  const update = () => {
    link.href = pageRelative(`/api/v1/backup${secrets.checked ? '?secrets=true' : ''}`);
    link.textContent = secrets.checked ? 'Download settings with passwords and keys' : 'Download settings';
    link.classList.toggle('danger', secrets.checked);
  };
  secrets.addEventListener('change', update);
  update();

  element('backup-restore').addEventListener('click', () => {
    const file = element<HTMLInputElement>('backup-file').files?.[0];
    if (!file) {
      status.textContent = 'Choose a settings file first.';
      return;
    }
    status.textContent = 'Restoring…';
    void file
      .text()
      .then((text) => {
        let backup: SettingsBackup;
        try {
          backup = JSON.parse(text) as SettingsBackup;
        } catch {
          throw new Error(`${file.name} is not JSON`);
        }
        return api<{ restored: number; changed: string[] }>('POST', '/api/v1/backup', backup);
      })
      .then((answer) => {
        status.textContent = `Restored: ${answer.changed.length} of ${answer.restored} settings changed.`;
      })
      .catch((error: unknown) => {
        const fields =
          error instanceof ApiError
            ? error.fields.map((issue) => `${issue.field}: ${issue.message}`).join('; ')
            : '';
        status.textContent = `Not restored, nothing changed: ${fields || (error as Error).message}`;
      });
  });
}
