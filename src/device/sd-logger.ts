import { type Timer } from '../clock.js';
import { closeSync, fdatasyncSync, mkdirSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import { QUANTITIES } from '../reading/quantities.js';
import { localDateTime, offsetSuffix } from '../reading/time-format.js';
import type { AppConfig } from '../config/types.js';
import type { DeclaredOutput, OutputStatus, OutputView, StatusPort } from '../output.js';
import { deleteExpiredCsvFiles } from './csv-retention.js';
import { sdCardRoot } from './sd-card.js';

/**
 * CSV columns: local time with its UTC offset (ISO 8601, 2026-10-25T02:30:00+01:00), meter status, tariff, one column per quantity of the table (its key, in
 * the table's unit), and the first M-Bus channel's cumulative volume. A value the meter did not
 * send, or any value while the reading is stale, is an empty field.
 */
export const CSV_COLUMNS: readonly string[] = [
  'date_time',
  'status',
  'tariff',
  ...QUANTITIES.map((q) => q.key),
  'volume_1',
];

type SdSettings = AppConfig['services']['sd'];

/** The status facts of CSV logging (docs/architecture.md#output-contract). */
export type SdFacts = {
  /** The folder under /sdcard the rows go to. */
  directory: string;
  /** Rows written since the start. */
  rows: number;
};
export type SdStatus = OutputStatus<SdFacts>;

/**
 * SD logging (services.sd): a CSV row every services.sd.frequency seconds into the SD card folder
 * (sd_log.directory, default `<state>/sd/`), one
 * file per local day. Every row is written and fdatasync'd on its own, so a power cut loses at most
 * the row being written. The first row of a new local day opens the day's file, closes the one
 * before and applies the retention limit (sd_log.retention_days); a clock that jumps (a Pi without
 * a real-time clock sets its time from the network after boot) or a DST change moves no file.
 * The daily housekeeping applies the same limit while no rows are written. A folder that cannot be
 * made rejects the apply (the runner retries it); a row that cannot be written (full or read-only
 * card) is `retrying` until the next row of the interval is written.
 */
export class SdLogger implements DeclaredOutput<SdSettings, SdFacts> {
  readonly name = 'sd';
  private timer: Timer | undefined;
  /** The local date whose retention was last applied. */
  private retentionDate: string | undefined;
  /** The open day file and the columns of its header line, which its rows keep. */
  private file: { date: string; fd: number; columns: readonly string[] } | undefined;
  private rows = 0;
  private status: StatusPort<SdFacts> | undefined;
  readonly watches = ['services.sd'] as const;

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
  ) {}

  get directory(): string {
    return sdCardRoot(this.context.config.config);
  }

  select(config: AppConfig): SdSettings {
    return config.services.sd;
  }

  enabled(sd: SdSettings): boolean {
    return sd.enable;
  }

  async start(status: StatusPort<SdFacts>): Promise<void> {
    this.status = status;
  }

  async stop(): Promise<void> {
    this.halt();
  }

  /** Off: no timer, no open file. On: the folder is made and a row is written every `frequency` s. */
  apply({ slice: sd }: OutputView<SdSettings>): SdFacts {
    this.halt();
    this.status?.trouble(undefined);
    if (!sd.enable) return { directory: 'sd', rows: this.rows };
    // A read-only or missing card: not running as asked (the runner retries the apply).
    mkdirSync(this.directory, { recursive: true });
    this.retentionDate = localDateTime(new Date(this.context.now())).slice(0, 10);
    this.timer = this.context.clock.setInterval(() => this.writeRow(), sd.frequency * 1000);
    this.applyRetention();
    return { directory: 'sd', rows: this.rows };
  }

  private halt(): void {
    if (this.timer) this.context.clock.clearInterval(this.timer);
    this.timer = undefined;
    this.closeFile();
  }

  /** Appends one row for now; public so tests can drive it without waiting for the interval. */
  writeRow(): void {
    const now = new Date(this.context.now());
    const stamp = localDateTime(now);
    const date = stamp.slice(0, 10);
    if (date !== this.retentionDate) {
      this.retentionDate = date;
      this.applyRetention();
    }
    try {
      const { fd, columns } = this.fileFor(date);
      // The local time with its UTC offset: the repeated hour of a DST change stays unambiguous.
      const values = this.rowValues(stamp + offsetSuffix(now));
      writeSync(fd, `${csvRow(columns.map((column) => values.get(column) ?? ''))}\n`);
      fdatasyncSync(fd);
      this.rows += 1;
      this.status?.facts({ rows: this.rows });
      this.status?.trouble(undefined);
    } catch (error) {
      this.failed(error as Error);
      this.closeFile();
    }
  }

  /** A full (ENOSPC) or read-only (EROFS, EACCES) disk: `retrying` until a row is written; the daemon goes on. */
  private failed(error: Error): void {
    this.logger.error(`cannot write CSV row: ${error.message}`);
    this.status?.trouble(error.message);
  }

  /** The row's fields by column name (CSV_COLUMNS). */
  private rowValues(stamp: string): Map<string, string> {
    const { store } = this.context;
    const reading = store.latest;
    const number = (value: number | undefined) => (value === undefined ? '' : String(value));
    return new Map([
      ['date_time', stamp],
      ['status', store.meter.status],
      ['tariff', number(reading?.tariff)],
      ...QUANTITIES.map((q): [string, string] => [q.key, number(reading?.values.get(q.obis)?.value)]),
      ['volume_1', number(reading?.mbus[0]?.cumulative)],
    ]);
  }

  /**
   * The day's file, opened for appending. A new file gets today's header; a file begun by an
   * earlier version (another column set) keeps its own header, and its rows follow that header:
   * a column the table no longer has stays empty, a quantity added since starts with the next day's
   * file. So every row of a file has the columns its header names.
   */
  private fileFor(date: string): { fd: number; columns: readonly string[] } {
    if (this.file?.date === date) return this.file;
    this.closeFile();
    const path = join(this.directory, `${date}.csv`);
    const fd = openSync(path, 'a+', 0o640);
    let columns: readonly string[] = CSV_COLUMNS;
    if (statSync(path).size === 0) writeSync(fd, `${csvRow([...CSV_COLUMNS])}\n`);
    else columns = headerOf(fd) ?? CSV_COLUMNS;
    this.file = { date, fd, columns };
    return this.file;
  }

  private closeFile(): void {
    if (this.file) closeSync(this.file.fd);
    this.file = undefined;
  }

  /**
   * Deletes day files older than the retention limit (by the date in their name). A file that
   * cannot be deleted is logged and left; it never stops the rows.
   */
  applyRetention(): void {
    const keepDays = this.context.config.config.sd_log.retention_days;
    deleteExpiredCsvFiles(this.directory, keepDays, this.context.now(), this.logger);
  }
}

/** The column names of a file's first line (our headers are plain names, never quoted). */
function headerOf(fd: number): string[] | undefined {
  const buffer = Buffer.alloc(HEADER_READ_BYTES);
  const length = readSync(fd, buffer, 0, buffer.length, 0);
  const end = buffer.subarray(0, length).indexOf(0x0a);
  if (end <= 0) return undefined;
  return buffer.toString('utf8', 0, end).replace(/\r$/, '').split(',');
}

/** Longer than any header this logger writes (about 40 column names). */
const HEADER_READ_BYTES = 4096;

function csvRow(fields: string[]): string {
  return fields.map((field) => (/[",\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field)).join(',');
}
