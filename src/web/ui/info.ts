import type { SystemView } from '../../http/status-views.js';
import { api, element } from './api.js';

/** Seconds as "2 d 3 h 4 min" (seconds only below a minute). */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  return [days ? `${days} d` : '', days || hours ? `${hours} h` : '', `${minutes} min`]
    .filter(Boolean)
    .join(' ');
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

function fillFacts(list: HTMLElement, facts: Array<[label: string, value: string]>): void {
  list.replaceChildren();
  for (const [label, value] of facts) {
    const term = document.createElement('dt');
    term.textContent = label;
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
    ['Addresses', addresses.length > 0 ? addresses.join(', ') : 'none'],
    ['Memory (RSS)', megabytes(runtime.memory.rss_bytes)],
    ['Heap used', megabytes(runtime.memory.heap_used_bytes)],
    ['Node.js', runtime.node],
  ]);
  fillFacts(
    element('info-counters'),
    Object.entries(system.counters).map(([name, value]) => [name.replaceAll('_', ' '), String(value)]),
  );
}

/** The Info page: device and process facts and the input counters of GET /api/v1/system. */
export async function showInfo(): Promise<void> {
  const note = element('info-status');
  try {
    show(await api<SystemView>('GET', '/api/v1/system'));
    note.textContent = `Updated ${new Date().toLocaleTimeString()}`;
  } catch (error) {
    note.textContent = `Could not load: ${(error as Error).message}`;
  }
}
