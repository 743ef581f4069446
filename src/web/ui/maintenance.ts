import { errorOf, api, element, pageRelative } from './api.js';
import { t, type MessageKey } from './i18n/i18n.js';

function say(id: string, text: string): void {
  element(id).textContent = text;
}

/** Firmware upload to /load as multipart/form-data (part `file`) with XHR upload progress. */
function upload(file: File): void {
  const progress = element<HTMLProgressElement>('firmware-progress');
  const request = new XMLHttpRequest();
  progress.hidden = false;
  progress.value = 0;
  request.upload.onprogress = (event) => {
    if (event.lengthComputable) progress.value = event.loaded / event.total;
    say('firmware-status', t('settings.uploading', { percent: Math.round(progress.value * 100) }));
  };
  request.upload.onload = () => say('firmware-status', t('settings.uploaded'));
  request.onload = () => {
    if (request.status === 200) {
      say('firmware-status', `${request.responseText.trim()}. ${t('settings.reload_when_back')}`);
      waitForRestart();
      return;
    }
    void errorOf(new Response(request.responseText, { status: request.status })).then((error) =>
      say('firmware-status', t('settings.refused', { status: request.status, message: error.message })),
    );
  };
  request.onerror = () => say('firmware-status', t('settings.upload_lost'));
  const body = new FormData();
  body.append('file', file, file.name);
  request.open('POST', pageRelative('/load'));
  request.send(body);
}

/** After a restart: reload the page once the API answers again. */
function waitForRestart(): void {
  const started = Date.now();
  const poll = () => {
    fetch(pageRelative('/api/v1/system'), { cache: 'no-store' })
      .then((response) =>
        response.ok && Date.now() - started > 2_000 ? location.reload() : setTimeout(poll, 2_000),
      )
      .catch(() => setTimeout(poll, 2_000));
  };
  setTimeout(poll, 2_000);
}

function restartAction(path: string, question: MessageKey, done: MessageKey): void {
  if (!confirm(t(question))) return;
  api('POST', path)
    .then(() => {
      say('maintenance-status', t(done));
      waitForRestart();
    })
    .catch((error: unknown) => say('maintenance-status', (error as Error).message));
}

export function bindMaintenance(): void {
  element('firmware-upload').addEventListener('click', () => {
    const file = element<HTMLInputElement>('firmware-file').files?.[0];
    if (!file) return say('firmware-status', t('settings.choose_bundle'));
    upload(file);
  });
  element('reboot').addEventListener('click', () =>
    restartAction('/api/v1/reboot', 'settings.confirm_reboot', 'settings.restarting'),
  );
  element('restore').addEventListener('click', () =>
    restartAction('/api/v1/restore', 'settings.confirm_restore', 'settings.restore_done'),
  );
}
