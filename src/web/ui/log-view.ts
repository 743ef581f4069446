import type { LogLineView, LogView } from '../../contracts/status.js';
import { api, element } from './api.js';
import { formatTime } from './format.js';
import { t } from './i18n/i18n.js';

function lineItem(line: LogLineView): HTMLLIElement {
  const item = document.createElement('li');
  item.className = `log-${line.level}`;
  item.dataset.level = line.level;
  const time = formatTime(Date.parse(line.time), 'full');
  const where = line.component ? `[${line.component}] ` : '';
  const fields = line.fields ? ` ${JSON.stringify(line.fields)}` : '';
  item.textContent = `${time} ${line.level}: ${where}${line.message}${fields}`;
  // The daemon's log lines, as it writes them.
  item.translate = false;
  return item;
}

/** Loads the latest log lines at the chosen level (newest at the bottom, scrolled into view). */
export async function showLog(): Promise<void> {
  const level = element<HTMLSelectElement>('log-level').value;
  const status = element('log-status');
  try {
    const view = await api<LogView>('GET', `/api/v1/log?level=${encodeURIComponent(level)}`);
    const list = element('log-lines');
    list.replaceChildren(...view.lines.map(lineItem));
    list.scrollTop = list.scrollHeight;
    status.textContent = t('info.log_lines', { count: view.lines.length, capacity: view.capacity });
  } catch (error) {
    status.textContent = t('info.log_failed', { message: (error as Error).message });
  }
}

export function bindLogView(): void {
  element('log-level').addEventListener('change', () => void showLog());
  element('log-refresh').addEventListener('click', () => void showLog());
}
