import type { LivePayload } from '../../contracts/reading.js';
import type { SystemView } from '../../contracts/system.js';
import { api, element } from './api.js';
import { formatTime, decimalsOf, formatNumber, protocolVersionText } from './format.js';
import { LiveChart } from './live-chart.js';
import { t, tOr, type MessageKey } from './i18n/i18n.js';
import { Headline } from './headline.js';
import { onStream } from './page-stream.js';

/** meter.timeout's default: a reading older than this is stale even while the meter status says OK. */
const MIN_STALE_MS = 10_000;
const SYSTEM_POLL_MS = 3_000;

/** Rows of the per-phase and energy tables: label and the live keys of its cells. */
const PHASE_ROWS: Array<[label: MessageKey, keys: string[]]> = [
  ['dashboard.row_import_kw', ['P_P1_In', 'P_P2_In', 'P_P3_In']],
  ['dashboard.row_export_kw', ['P_P1_Out', 'P_P2_Out', 'P_P3_Out']],
  ['dashboard.row_voltage', ['V_P1', 'V_P2', 'V_P3']],
  ['dashboard.row_current', ['I_P1', 'I_P2', 'I_P3']],
];
const ENERGY_ROWS: Array<[label: MessageKey, keys: string[]]> = [
  ['common.import', ['E_In', 'E_In_T1', 'E_In_T2']],
  ['common.export', ['E_Out', 'E_Out_T1', 'E_Out_T2']],
];

function fillTable(body: HTMLElement, rows: Array<[label: MessageKey, keys: string[]]>): void {
  for (const [label, keys] of rows) {
    const row = document.createElement('tr');
    const head = document.createElement('th');
    head.textContent = t(label);
    row.append(head);
    for (const key of keys) {
      const cell = document.createElement('td');
      cell.dataset.live = key;
      cell.textContent = '—';
      row.append(cell);
    }
    body.append(row);
  }
}

/** The reading's local date and time (the live payload's Date and Time) in ms, when it has them. */
function readingTime(payload: LivePayload): number | undefined {
  const ms = new Date(`${payload.Date}T${payload.Time}`).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

const IDENTITY_FIELDS: Array<[key: keyof SystemView['meter'], label: MessageKey]> = [
  ['interface', 'dashboard.interface'],
  ['protocol', 'dashboard.protocol'],
  ['protocol_version', 'common.version'],
  ['vendor', 'dashboard.vendor'],
  ['model', 'common.model'],
  ['id', 'dashboard.meter_id'],
];

/**
 * The dashboard: meter status and identity (polled from /api/v1/system), the latest reading from
 * the page's stream (`live` events, src/web/ui/page-stream.ts) and a rolling chart of the last
 * minutes. A value is shown as current only while the stream is open, the meter status is OK and
 * the last event is younger than the staleness limit; otherwise the cards are greyed and a banner
 * says why.
 */
export class Dashboard {
  private connected = false;
  private meterStatus = '';
  private lastEventAt = 0;
  private lastInterval = 0;
  private lastReadingTime = '';
  private events = 0;
  private readonly chart = new LiveChart();
  private readonly headline = new Headline();

  start(): void {
    fillTable(element('phase-rows'), PHASE_ROWS);
    fillTable(element('energy-rows'), ENERGY_ROWS);
    this.connect();
    void this.chart.prefill();
    this.headline.start();
    void this.pollSystem();
    setInterval(() => void this.pollSystem(), SYSTEM_POLL_MS);
    setInterval(() => this.showFreshness(), 1_000);
  }

  private connect(): void {
    const connected = (open: boolean) => () => {
      this.connected = open;
      this.showFreshness();
    };
    onStream('open', connected(true));
    onStream('error', connected(false));
    onStream<LivePayload>('live', (payload) => this.onLive(payload));
  }

  private async pollSystem(): Promise<void> {
    try {
      const system = await api<SystemView>('GET', '/api/v1/system');
      this.meterStatus = system.meter.status;
      this.showIdentity(system);
    } catch {
      this.meterStatus = '';
    }
    this.showFreshness();
  }

  private showIdentity(system: SystemView): void {
    const name = system.device.name || 'meter-gateway';
    element('device-name').textContent = name;
    document.title = `${name} · meter-gateway`;
    const facts = element('meter-identity');
    facts.replaceChildren();
    const add = (label: string, value: string | undefined) => {
      if (!value) return;
      const term = document.createElement('dt');
      term.textContent = label;
      const detail = document.createElement('dd');
      detail.textContent = value;
      facts.append(term, detail);
    };
    for (const [key, label] of IDENTITY_FIELDS) {
      const value = system.meter[key];
      const text = value === undefined ? undefined : String(value);
      const shown =
        key === 'protocol_version' && text !== undefined
          ? protocolVersionText(system.meter.protocol, text)
          : text;
      add(t(label), shown);
    }
    add(t('dashboard.gateway_id'), system.device.id);
    add(t('dashboard.firmware'), system.device.firmware);
  }

  private onLive(payload: LivePayload): void {
    const now = Date.now();
    if (this.lastEventAt) this.lastInterval = now - this.lastEventAt;
    this.lastEventAt = now;
    this.events += 1;
    this.lastReadingTime = formatTime(readingTime(payload) ?? now, 'seconds');
    for (const cell of document.querySelectorAll<HTMLElement>('[data-live]')) {
      const key = cell.dataset.live!;
      cell.textContent = formatNumber(payload[key], decimalsOf(key));
    }
    element('p-in').textContent = formatNumber(payload.P_In, 3);
    element('p-out').textContent = formatNumber(payload.P_Out, 3);
    this.headline.showLive(payload);
    element('reading-time').textContent = this.lastReadingTime;
    // The number of live events, not shown: the page's tests wait on it.
    element('live-age').dataset.events = String(this.events);
    this.showVolumes(payload.Vol);
    this.chart.add(now / 1000, payload);
    this.showFreshness();
  }

  private showVolumes(volumes: LivePayload['Vol']): void {
    const list = element('volumes');
    list.replaceChildren();
    for (const volume of volumes ?? []) {
      const item = document.createElement('li');
      const captured = volume.DT === undefined ? Number.NaN : Date.parse(volume.DT);
      const at = Number.isFinite(captured) ? formatTime(captured, 'stamp') : volume.DT;
      item.textContent = t('dashboard.volume', {
        bus: volume.Bus ?? '?',
        id: volume.M_ID ?? '',
        value: formatNumber(volume.Cum, 3),
        at: at ? ` (${at})` : '',
      });
      list.append(item);
    }
    if (list.childElementCount === 0)
      list.append(
        Object.assign(document.createElement('li'), { textContent: t('dashboard.no_m_bus_meter') }),
      );
  }

  /** Greys out the readings and names the reason when they are not current. */
  private showFreshness(): void {
    const staleAfter = Math.max(MIN_STALE_MS, 2.5 * this.lastInterval);
    const age = this.lastEventAt ? Date.now() - this.lastEventAt : Infinity;
    // When the last reading came, not how many did: a count says nothing a user can act on.
    element('live-age').textContent = this.lastEventAt
      ? t('dashboard.last_reading', {
          time: formatTime(this.lastEventAt, 'seconds'),
          seconds: Math.max(0, Math.floor(age / 1000)),
        })
      : '—';
    const statusOk = this.meterStatus === 'OK';
    const current = this.connected && statusOk && age < staleAfter;
    const badge = element('meter-status');
    const status = this.meterStatus
      ? tOr(`meter_status.${this.meterStatus}`, this.meterStatus)
      : t('dashboard.unknown');
    badge.textContent = status;
    badge.className = `badge ${statusOk ? 'ok' : 'off'}`;
    const connection = element('connection');
    connection.textContent = t(this.connected ? 'nav.connected' : 'nav.not_connected');
    connection.className = `badge ${this.connected ? 'ok' : 'off'}`;
    document.body.classList.toggle('stale', !current);
    const banner = element('stale-banner');
    banner.hidden = current;
    if (current) return;
    const since = this.lastEventAt ? ` ${t('dashboard.stale_since', { time: this.lastReadingTime })}` : '';
    if (!this.connected) banner.textContent = t('dashboard.not_connected') + since;
    else if (!this.lastEventAt) banner.textContent = t('dashboard.no_data_yet', { status });
    else if (!statusOk) banner.textContent = t('dashboard.meter_status', { status }) + since;
    else banner.textContent = t('dashboard.no_reading_for', { seconds: Math.round(age / 1000) }) + since;
  }
}
