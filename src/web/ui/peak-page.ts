import type { PeakHistory } from '../../contracts/peak.js';
import { api, element } from './api.js';
import { currentLocale } from './i18n/i18n.js';
import { formatNumber, formatTime } from './format.js';
import { t, type MessageKey } from './i18n/i18n.js';
import { peakFacts, peakStateText, showPeakFacts, type PeakFact } from './peak-card.js';
import { tCount } from './i18n/plural.js';
import type { PeakData, PeakLive } from './peak-live.js';

/**
 * The peak page (#/peak): the month table of GET /api/v1/peak/history?months=13 (computed and
 * meter peaks with their times, which months the rolling average takes and their billed values)
 * and the stage list of GET /api/v1/peak (actions, relief, shed since, last shed and restore).
 * The window's live numbers (demand so far, predicted, allowed power now, time left) and the stage
 * list follow the peak stream while the page is open; the months reload on guard events and when
 * the stream reconnects (an event sent while it was down is not sent again).
 */

type HistoryMonth = PeakHistory['months'][number];

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

/** A column of a table: its header and the text of its cell in one row. */
type Column<Row> = [label: MessageKey, text: (row: Row) => string];

/**
 * Fills the table with a header row and one row per item, each returned with its item (for its
 * data attributes). The header texts label the cells on a phone (one block per row).
 */
function fillTable<Row>(
  table: HTMLTableElement,
  columns: readonly Column<Row>[],
  rows: readonly Row[],
): [HTMLTableRowElement, Row][] {
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  const labels = columns.map(([label]) => t(label));
  for (const label of labels) {
    const cell = document.createElement('th');
    cell.textContent = label;
    head.append(cell);
  }
  const body = table.createTBody();
  return rows.map((item) => {
    const row = body.insertRow();
    columns.forEach(([, text], index) => {
      const cell = row.insertCell();
      cell.textContent = text(item);
      cell.dataset.label = labels[index]!;
    });
    return [row, item];
  });
}

/** A month of the table and, when the rolling average takes it, the value it takes. */
interface MonthRow {
  month: HistoryMonth;
  counted: boolean;
  average: number | null | undefined;
}

const MONTH_COLUMNS: readonly Column<MonthRow>[] = [
  ['peak.col_month', ({ month }) => monthName(month.month)],
  // peak_kw is the month's billed value (the meter's when it sent one); computed_kw the windows'.
  ['peak.col_computed', ({ month }) => kw(month.computed_kw ?? null)],
  ['peak.col_computed_at', ({ month }) => stamp(month.computed_at ?? null)],
  ['peak.col_meter', ({ month }) => kw(month.meter_kw)],
  ['peak.col_meter_at', ({ month }) => stamp(month.meter_at)],
  ['peak.col_in_average', ({ counted, average }) => (counted ? kw(average) : '—')],
];

function showMonths(months: readonly HistoryMonth[], data: PeakData | undefined): void {
  const used = new Map((data?.rolling?.months ?? []).map((month) => [month.month, month.kw]));
  const rows = [...months]
    .reverse()
    .map((month) => ({ month, counted: used.has(month.month), average: used.get(month.month) }));
  for (const [row, { month, counted }] of fillTable(
    element<HTMLTableElement>('peak-months'),
    MONTH_COLUMNS,
    rows,
  )) {
    row.dataset.month = month.month;
    row.classList.toggle('in-average', counted);
  }
  element('peak-months-empty').hidden = months.length > 0;
  const count = used.size;
  element('peak-rolling').textContent =
    data?.rolling && count > 0 ? tCount('peak.rolling', count, { kw: kw(data.rolling.kw) }) : '';
  const short = element('peak-rolling-short');
  short.hidden = count === 0 || count >= FULL_YEAR;
  short.textContent = tCount('peak.rolling_short', count);
}

type Stage = NonNullable<PeakData['stages']>[number];

/** A stage of the table with its shed record, when it is shed. */
interface StageRow {
  stage: Stage;
  shed: NonNullable<PeakData['shed']>[number] | undefined;
}

function stageState({ shed }: StageRow): string {
  if (!shed) return t('peak.stage_on');
  return t(shed.ineffective ? 'peak.stage_ineffective' : 'peak.stage_shed');
}

const STAGE_COLUMNS: readonly Column<StageRow>[] = [
  ['peak.col_stage', ({ stage }) => stage.id],
  ['peak.col_shed', ({ stage }) => stage.shed],
  ['peak.col_restore', ({ stage }) => stage.restore],
  ['peak.col_relief', ({ stage }) => kw(stage.relief_kw)],
  ['peak.col_state', stageState],
  ['peak.col_since', ({ shed }) => (shed ? stamp(shed.since) : '—')],
  ['peak.col_last_shed', ({ stage }) => stamp(stage.last_shed)],
  ['peak.col_last_restore', ({ stage }) => stamp(stage.last_restore)],
];

function showStages(data: PeakData): void {
  const rows = (data.stages ?? []).map((stage) => ({
    stage,
    shed: data.shed?.find((item) => item.id === stage.id),
  }));
  for (const [row, { stage, shed }] of fillTable(
    element<HTMLTableElement>('peak-stages'),
    STAGE_COLUMNS,
    rows,
  )) {
    row.dataset.stage = stage.id;
    row.dataset.shed = String(shed !== undefined);
    row.dataset.ineffective = String(shed?.ineffective === true);
  }
  element('peak-stages-empty').hidden = rows.length > 0;
}

/** The window's live numbers, as the dashboard's card shows them (docs/architecture.md#peak-guard). */
const LIVE_FACTS: readonly PeakFact[] = [
  ['running', 'peak.running'],
  ['predicted', 'peak.predicted'],
  ['allowed', 'peak.allowed'],
  ['remaining', 'peak.remaining'],
  ['limit', 'peak.limit'],
  ['headroom', 'peak.headroom'],
];

function showGuard(data: PeakData): void {
  element('peak-page-off').hidden = data.state !== 'off';
  const live = element('peak-page-live');
  if (!live.querySelector('dl')) live.append(peakFacts(LIVE_FACTS, 'peak-page'));
  live.hidden = data.state === 'off';
  showPeakFacts(LIVE_FACTS, 'peak-page', data);
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
    const history = await api<PeakHistory>('GET', '/api/v1/peak/history?months=13');
    months = history.months;
    showMonths(months, live.latest);
  };
  live.onUpdate((data) => {
    if (open && !element('page-peak').hidden) showGuard(data);
  });
  const reloadMonths = () => {
    if (open && !element('page-peak').hidden) void loadMonths().catch(() => undefined);
  };
  live.onEvent(reloadMonths);
  // A window that closed while the stream was down sent its event to nobody here.
  live.onReconnect(reloadMonths);
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
