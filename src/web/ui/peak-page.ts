import { api, element } from './api.js';
import { currentLocale } from './i18n/i18n.js';
import { formatNumber, formatTime } from './format.js';
import { t, type MessageKey } from './i18n/i18n.js';
import { peakStateText } from './peak-card.js';
import type { PeakData, PeakLive } from './peak-live.js';

/**
 * The peak page (#/peak): the month table of GET /api/v1/peak/history?months=13 (computed and
 * meter peaks with their times, which months the rolling average takes and their billed values)
 * and the stage list of GET /api/v1/peak (actions, relief, shed since, last shed and restore).
 * The stage list follows the peak stream while the page is open; the months reload on guard events.
 */

interface HistoryMonth {
  month: string;
  meter_kw: number | null;
  meter_at: string | null;
  peak_kw: number | null;
  peak_at: string | null;
}

/** The rolling average takes at most 12 months (docs/architecture.md#peak-guard). */
const FULL_YEAR = 12;

const kw = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : formatNumber(value, 3);

const stamp = (iso: string | null | undefined): string => {
  const ms = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(ms) ? formatTime(ms, 'stamp') : '—';
};

function monthName(month: string): string {
  const [year, number] = month.split('-').map(Number);
  if (!year || !number) return month;
  return new Intl.DateTimeFormat(currentLocale(), { month: 'long', year: 'numeric' }).format(
    new Date(year, number - 1, 1),
  );
}

/** The header row; returns its texts, which label the cells on a phone (one block per row). */
function headRow(table: HTMLTableElement, labels: MessageKey[]): string[] {
  const head = table.createTHead().insertRow();
  const texts = labels.map((label) => t(label));
  for (const text of texts) {
    const cell = document.createElement('th');
    cell.textContent = text;
    head.append(cell);
  }
  return texts;
}

function cells(row: HTMLTableRowElement, texts: string[], labels: readonly string[]): void {
  texts.forEach((text, index) => {
    const cell = row.insertCell();
    cell.textContent = text;
    cell.dataset.label = labels[index] ?? '';
  });
}

function showMonths(months: readonly HistoryMonth[], data: PeakData | undefined): void {
  const table = element<HTMLTableElement>('peak-months');
  table.replaceChildren();
  const labels = headRow(table, [
    'peak.col_month',
    'peak.col_computed',
    'peak.col_computed_at',
    'peak.col_meter',
    'peak.col_meter_at',
    'peak.col_in_average',
  ]);
  const used = new Map((data?.rolling?.months ?? []).map((month) => [month.month, month.kw]));
  const body = table.createTBody();
  for (const month of [...months].reverse()) {
    const row = body.insertRow();
    row.dataset.month = month.month;
    const inAverage = used.get(month.month);
    row.classList.toggle('in-average', used.has(month.month));
    cells(
      row,
      [
        monthName(month.month),
        kw(month.peak_kw),
        stamp(month.peak_at),
        kw(month.meter_kw),
        stamp(month.meter_at),
        used.has(month.month) ? kw(inAverage) : '—',
      ],
      labels,
    );
  }
  element('peak-months-empty').hidden = months.length > 0;
  const count = used.size;
  element('peak-rolling').textContent =
    data?.rolling && count > 0 ? t('peak.rolling', { kw: kw(data.rolling.kw), count }) : '';
  const short = element('peak-rolling-short');
  short.hidden = count === 0 || count >= FULL_YEAR;
  short.textContent = t('peak.rolling_short', { count });
}

function stageState(data: PeakData, id: string): [text: string, since: string] {
  const shed = data.shed?.find((stage) => stage.id === id);
  if (!shed) return [t('peak.stage_on'), '—'];
  return [t(shed.ineffective ? 'peak.stage_ineffective' : 'peak.stage_shed'), stamp(shed.since)];
}

function showStages(data: PeakData): void {
  const table = element<HTMLTableElement>('peak-stages');
  table.replaceChildren();
  const labels = headRow(table, [
    'peak.col_stage',
    'peak.col_shed',
    'peak.col_restore',
    'peak.col_relief',
    'peak.col_state',
    'peak.col_since',
    'peak.col_last_shed',
    'peak.col_last_restore',
  ]);
  const body = table.createTBody();
  for (const stage of data.stages ?? []) {
    const row = body.insertRow();
    row.dataset.stage = stage.id;
    const [state, since] = stageState(data, stage.id);
    const shed = data.shed?.find((item) => item.id === stage.id);
    row.dataset.shed = String(shed !== undefined);
    row.dataset.ineffective = String(shed?.ineffective === true);
    cells(
      row,
      [
        stage.id,
        stage.shed,
        stage.restore,
        kw(stage.relief_kw),
        state,
        since,
        stamp(stage.last_shed),
        stamp(stage.last_restore),
      ],
      labels,
    );
  }
  element('peak-stages-empty').hidden = (data.stages ?? []).length > 0;
}

function showGuard(data: PeakData): void {
  element('peak-page-off').hidden = data.state !== 'off';
  const state = element('peak-page-state');
  state.textContent = peakStateText(data.state);
  state.dataset.state = data.state;
  showStages(data);
}

/** Binds the page to the stream; returns its loader (run when the page is opened). */
export function bindPeakPage(live: PeakLive): () => Promise<void> {
  let open = false;
  let months: HistoryMonth[] = [];
  const loadMonths = async () => {
    const history = await api<{ months: HistoryMonth[] }>('GET', '/api/v1/peak/history?months=13');
    months = history.months;
    showMonths(months, live.latest);
  };
  live.onUpdate((data) => {
    if (open && !element('page-peak').hidden) showGuard(data);
  });
  live.onEvent(() => {
    if (open && !element('page-peak').hidden) void loadMonths().catch(() => undefined);
  });
  return async () => {
    open = true;
    const failure = element('peak-page-error');
    try {
      const data = await api<PeakData>('GET', '/api/v1/peak');
      live.latest ??= data;
      showGuard(data);
      await loadMonths();
      showMonths(months, data);
      failure.hidden = true;
    } catch (error) {
      failure.textContent = t('settings.request_failed', { message: (error as Error).message });
      failure.hidden = false;
    }
  };
}
