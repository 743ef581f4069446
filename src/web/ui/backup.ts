import type { SettingsBackup } from '../../contracts/status.js';
import { api, ApiError, element, pageRelative } from './api.js';
import { t } from './i18n/i18n.js';

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
    link.textContent = t(secrets.checked ? 'settings.download_with_secrets' : 'settings.download_settings');
    link.classList.toggle('danger', secrets.checked);
  };
  secrets.addEventListener('change', update);
  update();

  element('backup-restore').addEventListener('click', () => {
    const file = element<HTMLInputElement>('backup-file').files?.[0];
    if (!file) {
      status.textContent = t('settings.choose_backup');
      return;
    }
    status.textContent = t('settings.restoring');
    void file
      .text()
      .then((text) => {
        let backup: SettingsBackup;
        try {
          backup = JSON.parse(text) as SettingsBackup;
        } catch {
          throw new Error(t('settings.not_json_file', { name: file.name }));
        }
        return api<{ restored: number; changed: string[] }>('POST', '/api/v1/backup', backup);
      })
      .then((answer) => {
        status.textContent = t('settings.restored', {
          changed: answer.changed.length,
          total: answer.restored,
        });
      })
      .catch((error: unknown) => {
        const fields =
          error instanceof ApiError
            ? error.fields.map((issue) => `${issue.field}: ${issue.message}`).join('; ')
            : '';
        status.textContent = t('settings.not_restored', { message: fields || (error as Error).message });
      });
  });
}
