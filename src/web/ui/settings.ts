import { addLimits } from './form-limits.js';
import type { ScanEntry } from '../../contracts/network.js';
import type { MeterSettingsView } from '../../contracts/settings.js';
import type { ProbeResultView } from '../../contracts/probe.js';
import type { MqttSettingsView } from '../../contracts/settings.js';
import type { SettingsChoices } from '../../contracts/page.js';
import type { SystemView } from '../../contracts/system.js';
import { markLocked } from './addon-locks.js';
import { api, element } from './api.js';
import { buildCostForm, syncCostForm } from './cost-settings.js';
import { bindConsumers, showConsumerAddresses } from './consumers.js';
import { configPath } from './fields.js';
import { formatNumber } from './format.js';
import { t, tOr, type MessageKey } from './i18n/i18n.js';
import { applyStatic } from './i18n/static-text.js';
import { bindSettingsForm, clearIssues, setStatus, showFailure } from './forms.js';

type Loader = () => Promise<void>;

function form(id: string): HTMLFormElement {
  return element<HTMLFormElement>(id);
}

function secretNote(id: string, parts: Array<[label: MessageKey, length: unknown]>): void {
  element(id).textContent = parts
    .map(
      ([label, length]) =>
        `${t(label)}: ${t(typeof length === 'number' && length > 0 ? 'settings.secret_set' : 'settings.secret_not_set')}`,
    )
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
  head.textContent = t('settings.probe_result', {
    outcome: `${answer.status}${answer.meterProtocol ? `: ${answer.meterProtocol}` : ''}${answer.error ? ` (${answer.error})` : ''}`,
    seconds: formatNumber(answer.elapsedMs / 1000, 1),
  });
  box.append(head);
  const list = document.createElement('ul');
  for (const step of answer.steps) {
    const item = document.createElement('li');
    item.textContent = t('settings.probe_step', {
      label: step.label,
      line: step.line,
      outcome: tOr(`probe.${step.outcome}`, step.outcome),
      bytes: step.bytes,
    });
    list.append(item);
  }
  box.append(list);
  if (answer.encrypted) box.append(`${t('settings.probe_encrypted')} `);
  if (answer.source) {
    const use = document.createElement('button');
    use.type = 'button';
    use.textContent = t('settings.use_source', { source: answer.source });
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
    setStatus(probe, t('settings.probing'), 'busy');
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
  row.insertCell().textContent = t('settings.channel', { channel: entry.channel });
  row.insertCell().textContent = entry.auth_mode;
  const pick = document.createElement('button');
  pick.type = 'button';
  pick.textContent = t('settings.use');
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
    status.textContent = t('settings.scanning');
    api<ScanEntry[]>('GET', '/api/v1/wifi/scan')
      .then((entries) => {
        status.textContent = entries.length === 0 ? t('settings.no_networks') : '';
        const table = element<HTMLTableElement>('wifi-networks');
        table.replaceChildren();
        for (const entry of entries) scanRow(table, entry, station);
      })
      .catch((error: unknown) => {
        status.textContent = t('settings.scan_failed', { message: (error as Error).message });
      });
  });
  element('wifi-forget').addEventListener('click', () => {
    if (!confirm(t('settings.confirm_forget'))) return;
    api('DELETE', '/api/v1/wifi/sta/settings')
      .then(() => reload())
      .then(() => setStatus(station, t('settings.forgotten')))
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
      select.replaceChildren(
        ...list.map((choice) => new Option(tOr(`choice.${choice.value}`, choice.label), choice.value)),
      );
    }
  } catch (error) {
    for (const select of selects) if (select.form) showFailure(select.form, error);
  }
}

/**
 * Wi-Fi and Ethernet take the same address fields: written once in the page (a template), put
 * into each form's `fieldset[data-fields=address]` and translated like the rest of the page.
 */
function addAddressFields(): void {
  const fields = element<HTMLTemplateElement>('address-fields').content;
  for (const fieldset of document.querySelectorAll('fieldset[data-fields="address"]')) {
    const copy = fields.cloneNode(true) as DocumentFragment;
    applyStatic(copy);
    fieldset.append(copy);
  }
}

/** Binds every settings form; returns the loaders of each tab. */
export function bindSettings(): Record<string, Loader[]> {
  addAddressFields();
  const costForm = form('form-costs');
  buildCostForm(costForm);
  // The selects get their options before a form is filled, or the saved value would find none.
  const choicesAdded = addChoices();
  void addLimits();
  const afterChoices =
    (load: Loader): Loader =>
    async () => {
      await choicesAdded;
      await load();
    };
  const system = bindSettingsForm(form('form-system'));
  const services = afterChoices(bindSettingsForm(form('form-services'), showConsumerAddresses));
  const costs = afterChoices(bindSettingsForm(costForm, () => syncCostForm(costForm)));
  const meter = bindSettingsForm(form('form-meter'), (data) =>
    secretNote('meter-key-state', [['settings.encryption_key', (data as MeterSettingsView).key_len]]),
  );
  const mqttForm = form('form-mqtt');
  const mqtt = bindSettingsForm(mqttForm, (data) => {
    const view = data as MqttSettingsView;
    secretNote('mqtt-secret-state', [
      ['settings.password', view.password_len],
      ['settings.client_key', view.client.key_len],
      ['settings.key_passphrase', view.client.key_password_len],
    ]);
  });
  bindPemUploads(mqttForm);
  bindProbe();
  bindConsumers();
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
