import type uPlot from 'uplot';
import type { HistoryView, RecentPoint, RecentView } from '../../contracts/history.js';
import type { LivePayload } from '../../contracts/reading.js';
import { api, element } from './api.js';
import { COLORS, createChart, FILLS } from './charts.js';

/** The rolling chart shows this many seconds. */
export const WINDOW_S = 300;

/** One chart row: time (Unix s), import, export (negative), and the net power of L1, L2, L3 (kW). */
type Row = [t: number, ...values: Array<number | null>];

/** The power keys a row is made of (live payload and recent buffer use the same live keys). */
type PowerValues = RecentPoint | LivePayload;
type PowerKey = Exclude<keyof RecentPoint, 't'>;

function rowOf(t: number, values: PowerValues): Row {
  const num = (key: PowerKey) => {
    const value = values[key];
    return typeof value === 'number' ? value : null;
  };
  const net = (phase: 1 | 2 | 3) => {
    const imported = num(`P_P${phase}_In`);
    const exported = num(`P_P${phase}_Out`);
    return imported === null && exported === null ? null : (imported ?? 0) - (exported ?? 0);
  };
  const out = num('P_Out');
  return [t, num('P_In'), out === null ? null : -out, net(1), net(2), net(3)];
}

/**
 * The dashboard's rolling chart of the last WINDOW_S seconds. It starts filled: the 1-minute history
 * (bucket means) for the time before the server's buffer of recent readings, then those readings,
 * then the live stream's events as they come.
 */
export class LiveChart {
  private rows: Row[] = [];
  private chart: uPlot | undefined;

  /** Loads the last minutes from the gateway; rows the live stream added meanwhile are kept. */
  async prefill(): Promise<void> {
    const now = Date.now() / 1000;
    const from = Math.floor(now - WINDOW_S);
    const [recent, minutes] = await Promise.all([
      api<RecentView>('GET', '/api/v1/history/recent').catch(() => undefined),
      api<HistoryView>('GET', `/api/v1/history?from=${from}&resolution=1m`).catch(() => undefined),
    ]);
    const recentRows = (recent?.points ?? []).map((point) => rowOf(point.t, point));
    const firstRecent = recentRows[0]?.[0] ?? Infinity;
    const minuteRows = (minutes?.points ?? [])
      .map((point): Row => [
        point.t + 30,
        point.p_in?.mean ?? null,
        point.p_out ? -point.p_out.mean : null,
        null,
        null,
        null,
      ])
      .filter((row) => row[0] < firstRecent);
    const firstLive = this.rows[0]?.[0] ?? Infinity;
    const earlier = [...minuteRows, ...recentRows].filter((row) => row[0] < firstLive);
    this.rows = [...earlier, ...this.rows];
    element('live-chart').dataset.prefilled = String(earlier.length);
    this.draw();
  }

  add(t: number, payload: LivePayload): void {
    this.rows.push(rowOf(t, payload));
    this.draw();
  }

  private draw(): void {
    const now = Date.now() / 1000;
    while (this.rows.length > 0 && this.rows[0]![0] < now - WINDOW_S) this.rows.shift();
    const columns = [0, 1, 2, 3, 4, 5].map((index) => this.rows.map((row) => row[index] ?? null));
    const data = columns as uPlot.AlignedData;
    element('live-chart').dataset.points = String(this.rows.length);
    if (this.chart) {
      this.chart.setData(data);
      return;
    }
    this.chart = createChart(
      element('live-chart'),
      [
        { label: 'common.import', stroke: COLORS.import, fill: FILLS.import },
        { label: 'common.export', stroke: COLORS.export, fill: FILLS.export },
        { label: 'chart.l1_net', stroke: COLORS.l1, dash: [4, 3] },
        { label: 'chart.l2_net', stroke: COLORS.l2, dash: [4, 3] },
        { label: 'chart.l3_net', stroke: COLORS.l3, dash: [4, 3] },
      ],
      data,
      'kW',
      () => {
        const end = Date.now() / 1000;
        return [end - WINDOW_S, end];
      },
    );
  }
}
