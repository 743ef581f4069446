import type { HistoryView } from '../../contracts/history.js';
import type { LivePayload } from '../../contracts/reading.js';
import { api, element } from './api.js';
import { showCostTotals } from './cost-view.js';
import { formatNumber, formatSigned, formatTime } from './format.js';
import { netPower } from './net-power.js';
import { t } from './i18n/i18n.js';
import { historyQuery, periodOf, periodTotals } from './periods.js';

const TODAY_POLL_MS = 30_000;

/**
 * The dashboard's two biggest numbers: net grid power from the live stream, and the energy
 * imported and exported today so far (since local midnight, from the history's 15-minute tier,
 * its open bucket included), with today's and this month's costs when they are on, read again
 * every TODAY_POLL_MS.
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
    // The sign of the value as shown (rounded to the watt): -0.0004 kW reads as balanced.
    const shown = net === undefined ? 0 : Math.round(net * 1000);
    out.className = shown > 0 ? 'importing' : shown < 0 ? 'exporting' : '';
    out.dataset.kw = net === undefined ? '' : String(net);
    element('net-direction').textContent =
      net === undefined
        ? t('dashboard.no_active_power')
        : t(shown > 0 ? 'dashboard.importing' : shown < 0 ? 'dashboard.exporting' : 'dashboard.balanced');
  }

  /**
   * This month so far: the month's daily history (today's open day included) with its costs, the
   * fixed charges billed to now by the server (docs/architecture.md#costs). Hidden without costs.
   */
  private async showMonth(): Promise<void> {
    const month = periodOf('month', new Date());
    const answer = await api<HistoryView>('GET', historyQuery(month));
    showCostTotals(element('month-cost'), answer.costs);
    element('month-cost-line').hidden = answer.costs === undefined;
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
      await this.showMonth();
      note.textContent = t('dashboard.as_of', { time: formatTime(Date.now(), 'minutes') });
    } catch (error) {
      note.textContent = t('dashboard.history_unavailable', { message: (error as Error).message });
    }
  }
}
