import type { ScanEntry } from '../../device/wifi/scan-entry-view.js';
import type { MeterSettingsView } from '../../http/settings-views.js';
import type { ProbeResultView } from '../../meter/probe/probe-view.js';
import type { MqttSettingsView } from '../../mqtt/settings-view.js';
import type { SettingsChoices } from '../page-contract.js';
import type { SystemView } from '../../http/status-views.js';
import { markLocked } from './addon-locks.js';
import { api, element } from './api.js';
import { buildCostForm, syncCostForm } from './cost-settings.js';
import { configPath } from './fields.js';
import { bindSettingsForm, clearIssues, setStatus, showFailure } from './forms.js';

type Loader = () => Promise<void>;

function form(id: string): HTMLFormElement {
  return element<HTMLFormElement>(id);
}

function secretNote(id: string, parts: Array<[label: string, length: unknown]>): void {
  element(id).textContent = parts
    .map(([label, length]) => `${label}: ${typeof length === 'number' && length > 0 ? 'set' : 'not set'}`)
    .join(' · ');
}

/** File input -> PEM text in the settings field it names (data-pem-for). */
function bindPemUploads(mqtt: HTMLFormElement): void {
  for (const input of mqtt.querySelectorAll<HTMLInputElement>('input[type=file][data-pem-for]')) {
    input.addEventListener('change', () => {
      const file = input.files?.[0];
      const target = mqtt.querySelector<HTMLTextAreaElement>(`textarea[name="${input.dataset.pemFor}"]`);
      if (!file || !target) return;
      void file.text().then((text) => {
        target.value = text.trim() + '\n';
      });
    });
  }
}

function showProbe(answer: ProbeResultView): void {
  const box = element('probe-result');
  box.replaceChildren();
  const head = document.createElement('p');
  head.textContent = `${answer.status}${answer.meterProtocol ? `: ${answer.meterProtocol}` : ''}${answer.error ? ` (${answer.error})` : ''} after ${(answer.elapsedMs / 1000).toFixed(1)} s`;
  box.append(head);
  const list = document.createElement('ul');
  for (const step of answer.steps) {
    const item = document.createElement('li');
    item.textContent = `${step.label} at ${step.line}: ${step.outcome}, ${step.bytes} bytes`;
    list.append(item);
  }
  box.append(list);
  if (answer.encrypted) box.append('Telegrams are encrypted: set the encryption key. ');
  if (answer.source) {
    const use = document.createElement('button');
    use.type = 'button';
    use.textContent = `Use ${answer.source}`;
    use.addEventListener('click', () => {
      form('form-meter').querySelector<HTMLInputElement>('input[name=source]')!.value = answer.source!;
    });
    box.append(use);
  }
}

function bindProbe(): void {
  const probe = form('form-probe');
  probe.noValidate = true;
  probe.addEventListener('submit', (event) => {
    event.preventDefault();
    clearIssues(probe);
    setStatus(probe, 'Probing (up to 30 s)…', 'busy');
    const device = probe.querySelector<HTMLInputElement>('input[name=device]')!.value.trim();
    api<ProbeResultView>('POST', '/api/v1/meter/probe', { device })
      .then((answer) => {
        setStatus(probe, '');
        showProbe(answer);
      })
      .catch((error: unknown) => showFailure(probe, error));
  });
}

function scanRow(table: HTMLTableElement, entry: ScanEntry, station: HTMLFormElement): void {
  const row = table.insertRow();
  row.insertCell().textContent = entry.ssid;
  row.insertCell().textContent = `${entry.signal} % (${entry.rssi} dBm)`;
  row.insertCell().textContent = `channel ${entry.channel}`;
  row.insertCell().textContent = entry.auth_mode;
  const pick = document.createElement('button');
  pick.type = 'button';
  pick.textContent = 'Use';
  pick.addEventListener('click', () => {
    station.querySelector<HTMLInputElement>('input[name=name]')!.value = entry.ssid;
    station.querySelector<HTMLInputElement>('input[name=enable]')!.checked = true;
    station.querySelector<HTMLInputElement>('input[name=password]')!.focus();
  });
  row.insertCell().append(pick);
}

function bindWifi(station: HTMLFormElement, reload: Loader): void {
  element('wifi-scan').addEventListener('click', () => {
    const status = element('wifi-scan-status');
    status.textContent = 'Scanning…';
    api<ScanEntry[]>('GET', '/api/v1/wifi/scan')
      .then((entries) => {
        status.textContent = entries.length === 0 ? 'No networks found (or no Wi-Fi hardware).' : '';
        const table = element<HTMLTableElement>('wifi-networks');
        table.replaceChildren();
        for (const entry of entries) scanRow(table, entry, station);
      })
      .catch((error: unknown) => {
        status.textContent = `Scan failed: ${(error as Error).message}`;
      });
  });
  element('wifi-forget').addEventListener('click', () => {
    if (!confirm('Forget the Wi-Fi network and disable the Wi-Fi client?')) return;
    api('DELETE', '/api/v1/wifi/sta/settings')
      .then(() => reload())
      .then(() => setStatus(station, 'Forgotten.'))
      .catch((error: unknown) => showFailure(station, error, 'wifi.sta.'));
  });
}

/**
 * Fills every `select[data-choices]` of the settings forms with the values the server accepts
 * (Modbus register maps, power signs, parity), by the field's config path: the form's data-strip
 * prefix and the field's name. A list the server does not send leaves the select empty; a failed
 * request is shown on the form.
 */
async function addChoices(): Promise<void> {
  const selects = [...document.querySelectorAll<HTMLSelectElement>('form select[data-choices]')];
  try {
    const choices = await api<SettingsChoices>('GET', '/api/v1/settings/choices');
    for (const select of selects) {
      const path = configPath(select.form?.dataset.strip ?? '', select.name);
      const list = choices[path] ?? [];
      select.replaceChildren(...list.map((choice) => new Option(choice.label, choice.value)));
    }
  } catch (error) {
    for (const select of selects) if (select.form) showFailure(select.form, error);
  }
}

/** Binds every settings form; returns the loaders of each tab. */
export function bindSettings(): Record<string, Loader[]> {
  const costForm = form('form-costs');
  buildCostForm(costForm);
  // The selects get their options before a form is filled, or the saved value would find none.
  const choicesAdded = addChoices();
  const afterChoices =
    (load: Loader): Loader =>
    async () => {
      await choicesAdded;
      await load();
    };
  const system = bindSettingsForm(form('form-system'));
  const services = afterChoices(bindSettingsForm(form('form-services')));
  const costs = afterChoices(bindSettingsForm(costForm, () => syncCostForm(costForm)));
  const meter = bindSettingsForm(form('form-meter'), (data) =>
    secretNote('meter-key-state', [['Encryption key', (data as MeterSettingsView).key_len]]),
  );
  const mqttForm = form('form-mqtt');
  const mqtt = bindSettingsForm(mqttForm, (data) => {
    const view = data as MqttSettingsView;
    secretNote('mqtt-secret-state', [
      ['Password', view.password_len],
      ['Client key', view.client.key_len],
      ['Key passphrase', view.client.key_password_len],
    ]);
  });
  bindPemUploads(mqttForm);
  bindProbe();
  const wifiForm = form('form-wifi');
  const wifi = bindSettingsForm(wifiForm);
  bindWifi(wifiForm, wifi);
  const discovery = bindSettingsForm(form('form-mqtt-discovery'));
  const eth = bindSettingsForm(form('form-eth'));
  // Settings the add-on's options set are shown locked (the API refuses changes to them).
  void api<SystemView>('GET', '/api/v1/system')
    .then((system) => markLocked(system.access.locked ?? []))
    .catch(() => undefined);
  return {
    system: [system],
    services: [services, costs],
    meter: [meter],
    mqtt: [mqtt, discovery],
    wifi: [wifi],
    eth: [eth],
  };
}
