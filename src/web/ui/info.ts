import type { PushView } from '../../contracts/push.js';
import type { SystemView } from '../../contracts/system.js';
import { api, element } from './api.js';
import { formatNumber, formatTime } from './format.js';
import { t, tOr } from './i18n/i18n.js';

/** Seconds as "2 d 3 h 4 min" (seconds only below a minute). */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  // Unit symbols (d, h, min, s) read alike in the page's four languages.
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  return [days ? `${days} d` : '', days || hours ? `${hours} h` : '', `${minutes} min`]
    .filter(Boolean)
    .join(' ');
}

function megabytes(bytes: number): string {
  return `${formatNumber(bytes / 1_048_576, 1)} MB`;
}

function fillFacts(list: HTMLElement, facts: Array<[label: string, value: string]>): void {
  list.replaceChildren();
  for (const [label, value] of facts) {
    const term = document.createElement('dt');
    term.textContent = tOr(`info.fact.${label}`, label);
    const detail = document.createElement('dd');
    detail.textContent = value;
    detail.dataset.fact = label;
    list.append(term, detail);
  }
}

function show(system: SystemView): void {
  const { device, runtime } = system;
  const addresses = runtime.addresses.map((entry) => `${entry.address} (${entry.interface})`);
  fillFacts(element('info-facts'), [
    ['Name', device.name],
    ['Host name', device.host_name],
    ['Id', device.id],
    ['Model', device.model],
    ['Version', runtime.version],
    ['Build', device.build],
    ['License', device.license.type],
    ['Uptime', formatDuration(runtime.uptime_s)],
    ['Since boot', formatDuration(device.time_since_boot)],
    ['Addresses', addresses.length > 0 ? addresses.join(', ') : t('info.none')],
    ['Memory (RSS)', megabytes(runtime.memory.rss_bytes)],
    ['Heap used', megabytes(runtime.memory.heap_used_bytes)],
    ['Node.js', runtime.node],
  ]);
  // Counters by the daemon's own name (info.counter.<name> where the catalogue has one).
  fillFacts(
    element('info-counters'),
    Object.entries(system.counters).map(([name, value]) => [
      tOr(`info.counter.${name}`, name.replaceAll('_', ' ')),
      String(value),
    ]),
  );
}

function cell(row: HTMLTableRowElement, text: string, key: string): void {
  const td = row.insertCell();
  td.textContent = text;
  td.dataset.push = key;
}

/** The fleet push targets of GET /api/v1/push: one row per target (docs/guide/fleet-push.md). */
function showPush(view: PushView): void {
  const table = element<HTMLTableElement>('info-push');
  const none = element('info-push-none');
  none.textContent = view.targets.length === 0 ? t('push.none') : '';
  table.hidden = view.targets.length === 0;
  const body = table.tBodies[0] ?? table.createTBody();
  body.replaceChildren();
  for (const target of view.targets) {
    const row = body.insertRow();
    row.dataset.target = target.id;
    cell(row, target.id, 'id');
    cell(row, tOr(`push.state.${target.state}`, target.state), 'state');
    cell(row, target.cursor === null ? '–' : formatTime(Date.parse(target.cursor), 'full'), 'cursor');
    cell(row, formatNumber(target.backlog_quarters, 0), 'backlog');
    cell(row, formatNumber(target.counts.sent, 0), 'sent');
    cell(row, formatNumber(target.counts.retried, 0), 'retried');
    cell(
      row,
      `${formatNumber(target.counts.dropped_too_old, 0)} / ${formatNumber(target.counts.dropped_rejected, 0)}`,
      'dropped',
    );
    cell(row, target.last_error ?? '–', 'last_error');
  }
}

/** The Info page: device and process facts, the input counters and the fleet push targets. */
export async function showInfo(): Promise<void> {
  const note = element('info-status');
  try {
    show(await api<SystemView>('GET', '/api/v1/system'));
    note.textContent = t('info.updated', { time: formatTime(Date.now(), 'seconds') });
  } catch (error) {
    note.textContent = t('info.load_failed', { message: (error as Error).message });
  }
  try {
    showPush(await api<PushView>('GET', '/api/v1/push'));
  } catch (error) {
    element('info-push-none').textContent = t('push.load_failed', { message: (error as Error).message });
  }
}
