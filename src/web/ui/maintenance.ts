import { errorOf, api, element, pageRelative } from './api.js';

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
    say('firmware-status', `Uploading ${Math.round(progress.value * 100)} %`);
  };
  request.upload.onload = () => say('firmware-status', 'Uploaded; the gateway verifies the bundle…');
  request.onload = () => {
    if (request.status === 200) {
      say('firmware-status', `${request.responseText.trim()}. The page reloads when the gateway is back.`);
      waitForRestart();
      return;
    }
    void errorOf(new Response(request.responseText, { status: request.status })).then((error) =>
      say('firmware-status', `Refused (HTTP ${request.status}): ${error.message}`),
    );
  };
  request.onerror = () => say('firmware-status', 'Upload failed: the connection was lost.');
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

function restartAction(path: string, question: string, done: string): void {
  if (!confirm(question)) return;
  api('POST', path)
    .then(() => {
      say('maintenance-status', done);
      waitForRestart();
    })
    .catch((error: unknown) => say('maintenance-status', (error as Error).message));
}

export function bindMaintenance(): void {
  element('firmware-upload').addEventListener('click', () => {
    const file = element<HTMLInputElement>('firmware-file').files?.[0];
    if (!file) return say('firmware-status', 'Choose a release bundle (.bin) first.');
    upload(file);
  });
  element('reboot').addEventListener('click', () =>
    restartAction('/api/v1/reboot', 'Restart the gateway now?', 'Restarting…'),
  );
  element('restore').addEventListener('click', () =>
    restartAction(
      '/api/v1/restore',
      'Delete every setting made here (network, MQTT, Modbus, passwords) and restart with the factory settings?',
      'Factory settings restored; restarting…',
    ),
  );
}
