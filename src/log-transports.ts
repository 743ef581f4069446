import { openSync, closeSync, type WriteStream } from 'node:fs';
import { basename, dirname } from 'node:path';
import winston from 'winston';
import TransportStream from 'winston-transport';

type Level = 'error' | 'warn' | 'info' | 'debug';

/** One log call, as every transport receives it. `meta` holds the child fields and the call's fields. */
export interface LogEntry {
  readonly time: Date;
  readonly level: Level;
  readonly message: string;
  readonly meta: Readonly<Record<string, unknown>>;
}

/** Where the logger puts the entry and its running number in winston's info object. */
export const ENTRY = Symbol('log entry');
export const SEQUENCE = Symbol('log sequence');

export function entryOf(info: unknown): LogEntry {
  return (info as Record<symbol, LogEntry>)[ENTRY]!;
}

/**
 * A transport that hands each entry to a plain `{write, close}` sink (a test's line list). The
 * sink's close is awaited before the transport finishes.
 */
export class SinkTransport extends TransportStream {
  constructor(private readonly sink: { write(entry: LogEntry): void; close(): Promise<void> }) {
    super();
  }

  override log(info: unknown, next: () => void): void {
    this.sink.write(entryOf(info));
    next();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.sink.close().then(
      () => callback(),
      (error: Error) => callback(error),
    );
  }
}

/**
 * sd-daemon(3) priority prefixes: journald reads `<N>` at the start of a line on a service's
 * stdout/stderr (SyslogLevelPrefix=yes, the default) as the syslog priority of that line, so
 * `journalctl -p warning` and the journal's colours show warnings and errors as such.
 */
const JOURNAL_PRIORITY: Record<Level, string> = { error: '<3>', warn: '<4>', info: '<6>', debug: '<7>' };

const twoDigits = (n: number) => String(n).padStart(2, '0');

/** Local time as `YYYY-MM-DD HH:mm:ss`, the terminal line's stamp. */
function localStamp(time: Date): string {
  return (
    `${time.getFullYear()}-${twoDigits(time.getMonth() + 1)}-${twoDigits(time.getDate())} ` +
    `${twoDigits(time.getHours())}:${twoDigits(time.getMinutes())}:${twoDigits(time.getSeconds())}`
  );
}

// C0 controls, DEL and C1 controls (ISO/IEC 6429): none may reach a log line raw.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text with every control character written as `\n`, `\t`, `\r` or `\uXXXX`: a logged string that
 * came from outside (a device path, a header) can never start a line of its own in the journal.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * One console line: `[<priority>][stamp ]level: [component] message {other fields as JSON}`.
 * Under journald (priority on) there is no stamp: journald stamps every line itself.
 */
export function consoleLine(entry: LogEntry, underJournald: boolean): string {
  const { component, ...rest } = entry.meta;
  const extra = Object.keys(rest).length > 0 ? ` ${escapeControls(JSON.stringify(rest))}` : '';
  const where = typeof component === 'string' && component !== '' ? `[${escapeControls(component)}] ` : '';
  const start = underJournald ? JOURNAL_PRIORITY[entry.level] : `${localStamp(entry.time)} `;
  return `${start}${entry.level}: ${where}${escapeControls(entry.message)}${extra}`;
}

/** A writable the console transport writes to (process.stdout / process.stderr, or a test's stand-in). */
export interface LineStream {
  write(text: string, callback?: (error?: Error | null) => void): boolean;
}

/**
 * The console transport: info and debug to stdout, warnings and errors to stderr. Under systemd
 * (JOURNAL_STREAM set) journald receives both with the priority prefix. It finishes once both
 * streams have written every line.
 */
export class ConsoleTransport extends TransportStream {
  private readonly underJournald: boolean;

  constructor(
    env: NodeJS.ProcessEnv,
    private readonly streams: { out: LineStream; err: LineStream },
  ) {
    super();
    this.underJournald = env.JOURNAL_STREAM !== undefined;
  }

  override log(info: unknown, next: () => void): void {
    const entry = entryOf(info);
    const stream = entry.level === 'error' || entry.level === 'warn' ? this.streams.err : this.streams.out;
    stream.write(`${consoleLine(entry, this.underJournald)}\n`);
    next();
  }

  override _final(callback: () => void): void {
    // An empty write completes after every earlier write on the same stream (writes are in order).
    const written = (stream: LineStream) =>
      new Promise<void>((resolve) => {
        stream.write('', () => resolve());
      });
    void Promise.all([written(this.streams.out), written(this.streams.err)]).then(() => callback());
  }
}

export function consoleTransport(
  env: NodeJS.ProcessEnv = process.env,
  streams: { out: LineStream; err: LineStream } = { out: process.stdout, err: process.stderr },
): ConsoleTransport {
  return new ConsoleTransport(env, streams);
}

/** services.log: size at which the file rotates, and how many files are kept (the current one included). */
export const SERVICES_LOG_MAX_BYTES = 1024 * 1024;
export const SERVICES_LOG_MAX_FILES = 5;

/** One JSON object per line: `timestamp` (ISO 8601 UTC), `level`, `message`, the entry's fields. */
const jsonLine = winston.format((info) => {
  const entry = entryOf(info);
  const line = {
    timestamp: entry.time.toISOString(),
    level: entry.level,
    message: entry.message,
    ...entry.meta,
  };
  info[Symbol.for('message')] = JSON.stringify(line);
  return info;
});

/**
 * The stream handling of winston's File transport (lib/winston/transports/file.js) that the class
 * below extends; winston's typings (transports/index.d.ts) declare only its options and fields.
 */
interface FileStreams {
  _createStream(this: object, source: NodeJS.ReadableStream): WriteStream;
  _endStream(this: object, callback?: () => void): void;
}

function hasFileStreams(prototype: unknown): prototype is FileStreams {
  return (
    typeof prototype === 'object' &&
    prototype !== null &&
    '_createStream' in prototype &&
    typeof prototype._createStream === 'function' &&
    '_endStream' in prototype &&
    typeof prototype._endStream === 'function'
  );
}

/** winston's File transport class (below): built on first use, so it loads only with services.log on. */
let reportingFileTransport: ReturnType<typeof defineReportingFileTransport> | undefined;

/**
 * winston's File transport, which does not report a failed write (a full SD card) to anyone: each
 * file stream it opens reports its errors as the transport's 'error'. `winston.transports.File`
 * is a getter that loads the transport's module (and its helpers) when first read.
 */
function defineReportingFileTransport() {
  const File = winston.transports.File;
  const inherited: unknown = File.prototype;
  if (!hasFileStreams(inherited)) throw new Error("winston's File transport has no _createStream/_endStream");
  return class ReportingFileTransport extends File {
    /** winston's queue of lines (file.js: a PassThrough made in its constructor), piped into the file. */
    declare _stream: NodeJS.ReadableStream;
    /** Puts back into the queue what it gives out while no file is attached (see _endStream). */
    private rescue: ((chunk: Buffer) => void) | undefined;

    _createStream(source: NodeJS.ReadableStream): WriteStream {
      const stream = inherited._createStream.call(this, source);
      stream.on('error', (error) => this.emit('error', error));
      // Before winston attaches the queue to the new file on 'open'.
      stream.prependListener('open', () => {
        if (this.rescue) source.off('data', this.rescue);
        this.rescue = undefined;
      });
      return stream;
    }

    /**
     * Rotation. winston detaches its queue (a PassThrough) from the full file in a callback that
     * runs inside the queue's own read(), when the line that fills the file has been accepted;
     * that read() then hands out the rest of the queue with no file attached, and the lines in it
     * (up to 16 KiB) were lost (upstream winstonjs/winston#1655, "Maxsize option may cause
     * winston to lose log entries"). They are put back at the head of the queue, which goes on
     * into the next file in order.
     */
    _endStream(callback?: () => void): void {
      const queue = this._stream;
      inherited._endStream.call(this, callback);
      // Detached now (and paused): a listener added here starts nothing, it only catches.
      if (!this.rescue) {
        const rescue = (chunk: Buffer) => queue.unshift(chunk);
        this.rescue = rescue;
        queue.on('data', rescue);
      }
    }
  };
}

/**
 * The services.log transport for `path`: JSON lines, rotated by size into five files with the
 * newest always at `path` (tailable: meter-gateway.log, meter-gateway1.log ... meter-gateway4.log).
 * The file is opened once here so that a path that cannot be written fails at once, with its reason.
 */
export function servicesLogTransport(path: string): TransportStream {
  closeSync(openSync(path, 'a'));
  reportingFileTransport ??= defineReportingFileTransport();
  return new reportingFileTransport({
    dirname: dirname(path),
    filename: basename(path),
    maxsize: SERVICES_LOG_MAX_BYTES,
    maxFiles: SERVICES_LOG_MAX_FILES,
    tailable: true,
    options: { flags: 'a' },
    format: jsonLine(),
  });
}

/** How many of the latest entries the in-memory ring keeps (the web page's log view). */
export const RECENT_LOG_CAPACITY = 500;

/**
 * The latest log entries in memory, oldest first: a fixed-size ring, so the cost is bounded
 * whatever the daemon logs. Fed by the logger like every other transport.
 */
export class RecentLog extends TransportStream {
  private readonly entries: LogEntry[] = [];
  private next = 0;
  /** Entries seen since start (the ring holds the last `capacity` of them). */
  total = 0;

  constructor(readonly capacity = RECENT_LOG_CAPACITY) {
    super();
  }

  override log(info: unknown, next: () => void): void {
    const entry = entryOf(info);
    if (this.entries.length < this.capacity) this.entries.push(entry);
    else this.entries[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    this.total += 1;
    next();
  }

  /** The held entries, oldest first. */
  snapshot(): LogEntry[] {
    if (this.entries.length < this.capacity) return [...this.entries];
    return [...this.entries.slice(this.next), ...this.entries.slice(0, this.next)];
  }
}
