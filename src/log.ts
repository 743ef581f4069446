export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/** Lower is more severe; a logger at level L writes the levels whose rank is <= rank(L). */
const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/** One log call, as every sink receives it. `meta` holds the child fields and the call's fields. */
export interface LogEntry {
  readonly time: Date;
  readonly level: LogLevel;
  readonly message: string;
  readonly meta: Readonly<Record<string, unknown>>;
}

/**
 * Where log entries go: the console (journald), the optional log file, a test's line list. `write`
 * must not throw. `close` resolves once everything written so far has reached its destination;
 * what a closed sink is given afterwards may be dropped (the console keeps writing).
 */
export interface LogSink {
  write(entry: LogEntry): void;
  close(): Promise<void>;
}

/** What a logger and all its children share: the level and the sinks. */
interface LogRoot {
  readonly level: LogLevel;
  readonly sinks: Set<LogSink>;
}

/**
 * The daemon's logger. Children (`child({component})`) add fields to every entry and share the
 * parent's level and sinks, so a sink added later (services.log) sees every component's lines.
 */
export class Logger {
  private constructor(
    private readonly root: LogRoot,
    private readonly fields: Readonly<Record<string, unknown>>,
  ) {}

  static create(level: LogLevel, sinks: readonly LogSink[]): Logger {
    return new Logger({ level, sinks: new Set(sinks) }, {});
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.log('error', message, fields);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.log('warn', message, fields);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.log('info', message, fields);
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.log('debug', message, fields);
  }

  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    if (RANK[level] > RANK[this.root.level]) return;
    const entry: LogEntry = {
      time: new Date(),
      level,
      message,
      meta: fields ? { ...this.fields, ...fields } : this.fields,
    };
    for (const sink of this.root.sinks) sink.write(entry);
  }

  child(fields: Record<string, unknown>): Logger {
    return new Logger(this.root, { ...this.fields, ...fields });
  }

  addSink(sink: LogSink): void {
    this.root.sinks.add(sink);
  }

  removeSink(sink: LogSink): void {
    this.root.sinks.delete(sink);
  }

  /** Closes every sink, together (before the process exits). */
  async close(): Promise<void> {
    await Promise.all([...this.root.sinks].map((sink) => sink.close()));
  }
}

/**
 * sd-daemon(3) priority prefixes: journald reads `<N>` at the start of a line on a service's
 * stdout/stderr (SyslogLevelPrefix=yes, the default) as the syslog priority of that line, so
 * `journalctl -p warning` and the journal's colours show warnings and errors as such.
 */
const JOURNAL_PRIORITY: Record<LogLevel, string> = { error: '<3>', warn: '<4>', info: '<6>', debug: '<7>' };

const twoDigits = (n: number) => String(n).padStart(2, '0');

/** Local time as `YYYY-MM-DD HH:mm:ss`, the terminal line's stamp. */
function localStamp(time: Date): string {
  return (
    `${time.getFullYear()}-${twoDigits(time.getMonth() + 1)}-${twoDigits(time.getDate())} ` +
    `${twoDigits(time.getHours())}:${twoDigits(time.getMinutes())}:${twoDigits(time.getSeconds())}`
  );
}

/**
 * One console line: `[<priority>][stamp ]level: [component] message {other fields as JSON}`.
 * Under journald (priority on) there is no stamp: journald stamps every line itself.
 */
export function consoleLine(entry: LogEntry, underJournald: boolean): string {
  const { component, ...rest } = entry.meta;
  const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
  const where = typeof component === 'string' && component !== '' ? `[${component}] ` : '';
  const start = underJournald ? JOURNAL_PRIORITY[entry.level] : `${localStamp(entry.time)} `;
  return `${start}${entry.level}: ${where}${entry.message}${extra}`;
}

/** A writable the console sink writes to (process.stdout / process.stderr, or a test's stand-in). */
export interface LineStream {
  write(text: string, callback?: (error?: Error | null) => void): boolean;
}

/**
 * The console sink: info and debug to stdout, warnings and errors to stderr. Under systemd
 * (JOURNAL_STREAM set) journald receives both with the priority prefix.
 */
export function consoleSink(
  env: NodeJS.ProcessEnv = process.env,
  streams: { out: LineStream; err: LineStream } = { out: process.stdout, err: process.stderr },
): LogSink {
  const underJournald = env.JOURNAL_STREAM !== undefined;
  const written = (stream: LineStream) =>
    new Promise<void>((resolve) => {
      // An empty write completes after every earlier write on the same stream (writes are in order).
      stream.write('', () => resolve());
    });
  return {
    write(entry) {
      const stream = entry.level === 'error' || entry.level === 'warn' ? streams.err : streams.out;
      stream.write(`${consoleLine(entry, underJournald)}\n`);
    },
    close: async () => {
      await Promise.all([written(streams.out), written(streams.err)]);
    },
  };
}

/** The daemon's logger: the console sink at `level`. */
export function createLogger(level: LogLevel, env: NodeJS.ProcessEnv = process.env): Logger {
  return Logger.create(level, [consoleSink(env)]);
}

/** A logger whose lines name the component ("[modbus] ..."). */
export function componentLogger(logger: Logger, component: string): Logger {
  return logger.child({ component });
}

/**
 * Before an exit: waits until every sink has written what it was given, or `timeoutMs`. The last
 * lines before an exit are often its reason, and a process.exit() right after a write to a pipe or
 * a file stream can lose them.
 */
export async function flushLogger(logger: Logger, timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([logger.close(), deadline]);
  clearTimeout(timer);
}
