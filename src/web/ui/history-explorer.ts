import type uPlot from 'uplot';
import type { HistoryView } from '../../contracts/history.js';
import { api, ApiError, element, pageRelative } from './api.js';
import { COLORS, createChart, type SeriesSpec } from './charts.js';
import { showBarCosts, showCostTotals } from './cost-view.js';
import { formatNumber, formatSigned, formatTime, type TimeStyle } from './format.js';
import { currentLocale, t, tServer } from './i18n/i18n.js';
import {
  carryDay,
  dateInputValue,
  dateOfInput,
  energyBars,
  historyQuery,
  PERIOD_VIEWS,
  periodOf,
  periodTotals,
  stepPeriod,
  type Period,
  type PeriodTotals,
  type PeriodView,
} from './periods.js';

const SERIES: SeriesSpec[] = [
  { label: 'chart.import_kwh', stroke: COLORS.import, bars: true },
  { label: 'chart.export_kwh', stroke: COLORS.export, bars: true },
  { label: 'chart.net_kwh', stroke: COLORS.net },
];

/** Tick labels and the period's title by view, in the page's one (Intl) time format. */
const TICKS: Record<PeriodView, TimeStyle> = { day: 'minutes', week: 'weekday', month: 'day', year: 'month' };

function title(period: Period): string {
  const to = period.to - 1;
  switch (period.view) {
    case 'day':
      return formatTime(period.from, 'date');
    case 'week':
      return `${formatTime(period.from, 'day')} – ${formatTime(to, 'day')} ${new Date(to).getFullYear()}`;
    case 'month':
      return new Intl.DateTimeFormat(currentLocale(), { month: 'long', year: 'numeric' }).format(period.from);
    case 'year':
      return String(new Date(period.from).getFullYear());
  }
}

function powerLine(totals: PeriodTotals): string {
  const part = (name: 'history.import_power' | 'history.export_power', stats: PeriodTotals['p_in']) =>
    stats
      ? t(name, {
          min: formatNumber(stats.min, 3),
          mean: formatNumber(stats.mean, 3),
          max: formatNumber(stats.max, 3),
        })
      : '';
  const parts = [part('history.import_power', totals.p_in), part('history.export_power', totals.p_out)];
  const shown = parts.filter(Boolean);
  return shown.length ? t('history.readings', { parts: shown.join(' · '), count: totals.readings }) : '';
}

/**
 * The energy explorer of the history page: a day (hourly bars), week or month (daily bars) or year
 * (monthly bars) of kWh imported, exported and net, with the period's totals and power statistics,
 * previous / next / date picker navigation and the shown period as a CSV download from the history
 * API. Month and year bars are sums of the daily tier's points, day bars of the 15-minute tier's.
 */
/** The history page's meter chooser: every meter, hidden while there is only the primary. */
async function fillMeterChooser(chooser: HTMLSelectElement): Promise<void> {
  const meters = await api<Array<{ id: string; name: string; name_key?: string }>>(
    'GET',
    '/api/v1/meters',
  ).catch(() => []);
  const chosen = chooser.value || 'main';
  chooser.replaceChildren(
    ...meters.map(
      (meter) => new Option(tServer(meter.name, meter.name_key), meter.id, false, meter.id === chosen),
    ),
  );
  chooser.hidden = meters.length <= 1;
}

export class HistoryExplorer {
  private period: Period = periodOf('day', new Date());
  /** The day the user is on: kept across view changes and carried along by steps. */
  private day = new Date();
  private chart: uPlot | undefined;
  private request = 0;

  bind(): void {
    for (const button of document.querySelectorAll<HTMLButtonElement>('#explorer [data-view]')) {
      button.addEventListener('click', () => {
        const view = button.dataset.view as PeriodView;
        if (PERIOD_VIEWS.includes(view)) void this.show(periodOf(view, this.day));
      });
    }
    element('explore-meter').addEventListener('change', () => void this.show(this.period));
    element('explore-prev').addEventListener('click', () => void this.show(stepPeriod(this.period, -1)));
    element('explore-next').addEventListener('click', () => void this.show(stepPeriod(this.period, 1)));
    element<HTMLInputElement>('explore-date').addEventListener('change', (event) => {
      const date = dateOfInput((event.target as HTMLInputElement).value);
      if (date) {
        this.day = date;
        void this.show(periodOf(this.period.view, date));
      }
    });
  }

  /** Shows the current period again (opening the page: its data may have grown). */
  async refresh(): Promise<void> {
    await fillMeterChooser(element<HTMLSelectElement>('explore-meter'));
    await this.show(this.period);
  }

  /** The meter the chooser names (the primary when there is no other). */
  private get meter(): string {
    return element<HTMLSelectElement>('explore-meter').value || 'main';
  }

  private async show(period: Period): Promise<void> {
    this.period = period;
    this.day = carryDay(this.day, period, new Date());
    const request = ++this.request;
    const box = element('explorer');
    box.removeAttribute('data-from');
    for (const button of box.querySelectorAll<HTMLButtonElement>('[data-view]'))
      button.classList.toggle('active', button.dataset.view === period.view);
    element('explore-title').textContent = title(period);
    element<HTMLInputElement>('explore-date').value = dateInputValue(this.day.getTime());
    element<HTMLButtonElement>('explore-next').disabled = period.to > Date.now();
    const csv = element<HTMLAnchorElement>('explore-csv');
    csv.href = pageRelative(historyQuery(period, 'csv', this.meter));
    const note = element('explore-note');
    let answer: HistoryView;
    try {
      answer = await api<HistoryView>('GET', historyQuery(period, undefined, this.meter));
    } catch (error) {
      if (request !== this.request) return;
      note.textContent =
        error instanceof ApiError && error.status === 404
          ? t('history.not_available')
          : t('history.read_failed', { message: (error as Error).message });
      return;
    }
    if (request !== this.request) return;
    this.showTotals(period, periodTotals(period, answer.points));
    const bars = energyBars(period, answer.points);
    const recorded = bars.filter((bar) => bar.net !== null).length;
    note.textContent = recorded === 0 ? t('history.no_energy') : '';
    this.draw(period, bars);
    showCostTotals(element('explore-cost'), answer.costs);
    const ends = [...bars.slice(1).map((bar) => bar.t), period.to];
    const costBars = bars.map((bar, i) => ({
      ...bar,
      from: bar.t,
      to: ends[i]!,
      label: formatTime(bar.t, TICKS[period.view]),
    }));
    showBarCosts(element<HTMLDetailsElement>('explore-bar-costs'), costBars, answer.points, answer.costs);
    box.dataset.from = String(period.from / 1000);
  }

  private showTotals(period: Period, totals: PeriodTotals): void {
    const show = (id: string, value: number, signed = false) => {
      const out = element(id);
      out.textContent = signed ? formatSigned(value, 3) : formatNumber(value, 3);
      out.dataset.kwh = String(value);
    };
    show('explore-import', totals.e_in);
    show('explore-export', totals.e_out);
    show('explore-net', totals.net, true);
    element('explore-power').textContent = powerLine(totals);
    element('explore-chart').dataset.period = period.view;
  }

  private draw(period: Period, bars: ReturnType<typeof energyBars>): void {
    const starts = bars.map((bar) => bar.t);
    const ends = [...starts.slice(1), period.to];
    // A bar stands in the middle of its hour, day or month.
    const data: uPlot.AlignedData = [
      starts.map((t, i) => (t + ends[i]!) / 2000),
      bars.map((bar) => bar.e_in),
      bars.map((bar) => (bar.e_out === null ? null : -bar.e_out)),
      bars.map((bar) => bar.net),
    ];
    if (this.chart) {
      this.chart.setData(data);
      return;
    }
    this.chart = createChart(
      element('explore-chart'),
      SERIES,
      data,
      'kWh',
      () => [this.period.from / 1000, this.period.to / 1000],
      () => TICKS[this.period.view],
    );
  }
}
