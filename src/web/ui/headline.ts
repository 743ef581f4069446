import type { HistoryView } from '../../history/history-view.js';
import type { LivePayload } from '../../reading/reading-views.js';
import { api, element } from './api.js';
import { showCostTotals } from './cost-view.js';
import { formatNumber, formatSigned, formatTime } from './format.js';
import { netPower } from './net-power.js';
import { historyQuery, periodOf, periodTotals } from './periods.js';

const TODAY_POLL_MS = 30_000;

/**
 * The dashboard's two biggest numbers: net grid power from the live stream, and the energy
 * imported and exported today so far (since local midnight, from the history's 15-minute tier,
 * its open bucket included), read again every TODAY_POLL_MS.
 */
export class Headline {
  start(): void {
    void this.pollToday();
    setInterval(() => void this.pollToday(), TODAY_POLL_MS);
  }

  showLive(payload: LivePayload): void {
    const net = netPower(payload);
    const out = element('net-power');
    out.textContent = formatSigned(net, 3);
    const shown = net === undefined ? 0 : Number(formatNumber(net, 3));
    out.className = shown > 0 ? 'importing' : shown < 0 ? 'exporting' : '';
    out.dataset.kw = net === undefined ? '' : String(net);
    element('net-direction').textContent =
      net === undefined
        ? 'the meter sends no active power'
        : shown > 0
          ? 'importing from the grid'
          : shown < 0
            ? 'exporting to the grid'
            : 'balanced';
  }

  private async pollToday(): Promise<void> {
    const today = periodOf('day', new Date());
    const note = element('today-note');
    try {
      const answer = await api<HistoryView>('GET', historyQuery(today));
      const totals = periodTotals(today, answer.points);
      element('today-in').textContent = formatNumber(totals.e_in, 3);
      element('today-out').textContent = formatNumber(totals.e_out, 3);
      showCostTotals(element('today-cost'), answer.costs);
      note.textContent = `as of ${formatTime(Date.now(), 'minutes')}`;
    } catch (error) {
      note.textContent = `History not available: ${(error as Error).message}`;
    }
  }
}
