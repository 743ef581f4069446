import type { OutputName } from '../../contracts/outputs.js';
import type { ServiceStatusView, SystemView } from '../../contracts/system.js';
import { api } from './api.js';
import { t, tOr, tServer, type MessageKey } from './i18n/i18n.js';

/**
 * Service states where the user looks: every element with `data-status="meter mqtt ..."` shows
 * those services of GET /api/v1/system (state, the last error, counters), refreshed while it is
 * visible and right after a settings form is sent.
 */

const POLL_MS = 2_000;

/** The outputs a status board may show (a `data-status` name not in OUTPUT_NAMES fails web/status-names). */
const LABELS: Partial<Record<OutputName, MessageKey>> = {
  meter: 'settings.meter_source',
  mqtt: 'status.mqtt_broker',
  modbus: 'settings.modbus_tcp_slave',
  modbus_rtu: 'settings.modbus_rtu_slave',
  cloud: 'settings.cloud_push',
  mdns: 'settings.mdns_announcement',
};

/** Counters shown after the state, by service line key, in this order. */
const COUNTERS: Array<[key: string, label: MessageKey | '']> = [
  ['source', ''],
  ['broker', ''],
  ['port', 'status.port'],
  ['device', ''],
  ['line', ''],
  ['connections', 'status.clients'],
  ['requests', 'status.requests'],
  ['exceptions', 'status.errors'],
  ['bad_frames', 'status.bad_frames'],
  ['published', 'status.published'],
  ['failed', 'status.failed'],
  ['queued', 'status.queued'],
  // The meter input's latest frame rejection while its link runs.
  ['last_error', ''],
];

const GOOD = new Set(['connected', 'open', 'running', 'listening']);
const BAD = new Set(['error', 'disconnected', 'retrying', 'waiting', 'blocked']);

function badgeClass(state: string): string {
  if (GOOD.has(state)) return 'badge ok';
  return BAD.has(state) ? 'badge off' : 'badge';
}

function span(className: string, text: string): HTMLSpanElement {
  const part = document.createElement('span');
  part.className = className;
  part.textContent = text;
  return part;
}

/** The meter source's description in the page's language (docs/architecture.md#server-message-keys). */
function sourceText(status: ServiceStatusView): unknown {
  return typeof status.source === 'string'
    ? tServer(status.source, status.source_key, status.source_args)
    : status.source;
}

function detailOf(name: string, status: ServiceStatusView): string {
  const parts: string[] = [];
  // The MQTT broker link's own word beside the output's state (`running` while it connects, too).
  if (name === 'mqtt' && typeof status.link === 'string')
    parts.push(tOr(`state.${status.link}`, status.link));
  // mDNS: the host and the services announced (`_hwenergy._tcp` while the HomeWizard personality is on).
  if (Array.isArray(status.services)) parts.push((status.services as string[]).join(', '));
  for (const [key, label] of COUNTERS) {
    // A source the daemon describes in words comes with the description's key.
    const value = key === 'source' ? sourceText(status) : status[key];
    if (typeof value === 'number' || (typeof value === 'string' && value !== ''))
      parts.push(label ? `${t(label)} ${value}` : String(value));
  }
  if (typeof status.retry_in_ms === 'number')
    parts.push(t('status.next_try', { seconds: Math.ceil(status.retry_in_ms / 1000) }));
  if (typeof status.reason === 'string')
    parts.push(tServer(status.reason, status.reason_key, status.reason_args));
  return parts.join(' · ');
}

/** Cloud targets: each one's counters and last error, and the switches that lack a URL. */
function cloudErrors(status: ServiceStatusView): string[] {
  const errors: string[] = [];
  const targets = (status.targets ?? {}) as Record<string, { sent?: number; error?: string }>;
  for (const [name, target] of Object.entries(targets)) {
    if (target.error) errors.push(`${name}: ${target.error}`);
  }
  for (const name of (status.without_url ?? []) as string[]) {
    errors.push(t('status.cloud_without_url', { name }));
  }
  return errors;
}

function serviceLine(name: OutputName, status: ServiceStatusView | undefined): HTMLElement {
  const line = document.createElement('div');
  line.className = 'status-line';
  line.dataset.service = name;
  const label = LABELS[name];
  line.append(span('status-name', label ? t(label) : name));
  const state = status?.state ?? 'off';
  const badge = span(badgeClass(state), tOr(`state.${state}`, state));
  badge.dataset.state = state;
  line.append(badge);
  if (!status) return line;
  const detail = detailOf(name, status);
  // Counters, addresses and the daemon's own reasons and errors: shown as the daemon words them.
  if (detail) line.append(Object.assign(span('status-detail muted', detail), { translate: false }));
  const errors = typeof status.error === 'string' ? [status.error] : [];
  if (name === 'cloud') errors.push(...cloudErrors(status));
  for (const error of errors) line.append(Object.assign(span('status-error', error), { translate: false }));
  return line;
}

/** States a `data-quiet` element (the dashboard) leaves out: services nobody switched on. */
const QUIET = new Set(['disabled']);

function render(container: HTMLElement, system: SystemView): void {
  // The declared outputs the board names (each has its label); web/status-names checks the page's lists.
  const names = (container.dataset.status ?? '')
    .split(/\s+/)
    .filter((name): name is OutputName => Object.hasOwn(LABELS, name));
  const quiet = container.dataset.quiet !== undefined;
  const shown = names.filter((name) => {
    const status = system.services[name];
    if (!quiet || name === 'meter') return true;
    return status !== undefined && !(QUIET.has(status.state) && cloudErrors(status).length === 0);
  });
  container.replaceChildren(...shown.map((name) => serviceLine(name, system.services[name])));
}

function visibleContainers(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>('[data-status]')].filter(
    (container) => container.offsetParent !== null,
  );
}

/** The cloud switches whose target has no URL say so next to the switch. */
function markUrlNotes(system: SystemView): void {
  const missing = (system.services.cloud?.url_missing ?? []) as string[];
  for (const note of document.querySelectorAll<HTMLElement>('[data-url-note]')) {
    const name = note.dataset.urlNote!;
    note.textContent = missing.includes(name) ? ` ${t('status.needs_url', { name })}` : '';
  }
}

/** Fetches /api/v1/system once and renders every visible status element. */
export async function refreshStatus(): Promise<void> {
  const containers = visibleContainers();
  if (containers.length === 0) return;
  try {
    const system = await api<SystemView>('GET', '/api/v1/system');
    for (const container of containers) render(container, system);
    markUrlNotes(system);
  } catch (error) {
    for (const container of containers) {
      container.replaceChildren(
        span('status-error', t('status.unavailable', { message: (error as Error).message })),
      );
    }
  }
}

/** Polls while a status element is visible; a saved form refreshes at once (the broker's answer follows). */
export function startStatus(): void {
  const tick = () => void refreshStatus();
  setInterval(tick, POLL_MS);
  window.addEventListener('hashchange', () => setTimeout(tick, 0));
  document.addEventListener('submit', () => {
    for (const delay of [300, 1_000]) setTimeout(tick, delay);
  });
  tick();
}
