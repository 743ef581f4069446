import { finished } from 'node:stream/promises';
import winston from 'winston';
import type TransportStream from 'winston-transport';
import { delay, systemClock, type Clock, type Timer } from './clock.js';
import { ENTRY, SEQUENCE, SinkTransport, consoleTransport, type LogEntry } from './log-transports.js';

export { consoleLine, consoleTransport, type LineStream, type LogEntry } from './log-transports.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/** Lower is more severe; a logger at level L writes the levels whose rank is <= rank(L). */
const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/**
 * A destination that is not a winston transport of its own (a test's line list): `write` must not
 * throw; `close` resolves once everything written so far has reached its destination.
 */
export interface LogSink {
  write(entry: LogEntry): void;
  close(): Promise<void>;
}

/**
 * Entries the logger holds while a transport cannot keep up (a slow SD card): beyond this, info and
 * debug lines are dropped and counted instead of growing the buffer; warnings and errors are kept.
 */
const DEFAULT_QUEUE_LIMIT = 50_000;

export interface LoggerOptions {
  queueLimit?: number;
  /** winston transports besides the sinks (the console). */
  transports?: readonly TransportStream[];
  /** Time stamps and the waits of ending (docs/architecture.md#clock). */
  clock?: Clock;
}

/** What a logger and all its children share: the winston logger, its level and its state. */
interface LogRoot {
  readonly level: LogLevel;
  readonly winston: winston.Logger;
  readonly queueLimit: number;
  readonly clock: Clock;
  /** Per transport being ended: the running number of the last entry it is still given. */
  readonly cutoffs: Map<TransportStream, number>;
  sequence: number;
  dropped: number;
  ended: boolean;
}

/**
 * The daemon's logger, a winston logger. Children (`child({component})`) add fields to every entry
 * and share the parent's level and transports, so a transport added later (services.log) sees
 * every component's lines.
 */
export class Logger {
  private constructor(
    private readonly root: LogRoot,
    private readonly fields: Readonly<Record<string, unknown>>,
  ) {}

  static create(level: LogLevel, sinks: readonly LogSink[], options: LoggerOptions = {}): Logger {
    const root: LogRoot = {
      level,
      winston: winston.createLogger({
        level,
        levels: RANK,
        exitOnError: false,
      }),
      queueLimit: options.queueLimit ?? DEFAULT_QUEUE_LIMIT,
      clock: options.clock ?? systemClock,
      cutoffs: new Map(),
      sequence: 0,
      dropped: 0,
      ended: false,
    };
    // A transport's error is handled by whoever added it (LogFile); the logger itself never throws.
    root.winston.on('error', () => undefined);
    const logger = new Logger(root, {});
    for (const transport of options.transports ?? []) logger.addTransport(transport);
    for (const sink of sinks) logger.addSink(sink);
    return logger;
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
    const root = this.root;
    if (root.ended || RANK[level] > RANK[root.level]) return;
    const queued = root.winston.writableLength + root.winston.readableLength;
    if (queued >= root.queueLimit && RANK[level] > RANK.warn) {
      root.dropped += 1;
      return;
    }
    if (root.dropped > 0 && queued < root.queueLimit / 2) {
      const dropped = root.dropped;
      root.dropped = 0;
      this.write('warn', `${dropped} log lines dropped: a log destination could not keep up`, {});
    }
    this.write(level, message, fields ? { ...this.fields, ...fields } : this.fields);
  }

  private write(level: LogLevel, message: string, meta: Readonly<Record<string, unknown>>): void {
    const entry: LogEntry = { time: new Date(this.root.clock.now()), level, message, meta };
    this.root.sequence += 1;
    this.root.winston.log({ level, message, [ENTRY]: entry, [SEQUENCE]: this.root.sequence });
  }

  child(fields: Record<string, unknown>): Logger {
    return new Logger(this.root, { ...this.fields, ...fields });
  }

  /**
   * Entries logged from now on reach `transport` too. Its format is preceded by a gate that lets
   * through only what was logged before the transport was switched off (endTransport).
   */
  addTransport(transport: TransportStream): void {
    if (this.root.ended) return;
    const cutoffs = this.root.cutoffs;
    const own = transport.format;
    transport.format = winston.format((info) => {
      const cutoff = cutoffs.get(transport);
      const sequence = info[SEQUENCE];
      if (cutoff !== undefined && typeof sequence === 'number' && sequence > cutoff) return false;
      return own ? own.transform(info, own.options) : info;
    })();
    this.root.winston.add(transport);
  }

  /** A plain sink (a test's line list) as one more transport. */
  addSink(sink: LogSink): void {
    this.addTransport(new SinkTransport(sink));
  }

  /**
   * Switches a transport off and ends it: entries logged before this call still reach it (after
   * the logger has passed on what it holds, at most `timeoutMs`), later ones do not; resolves
   * when the transport has finished writing.
   */
  async endTransport(transport: TransportStream, timeoutMs = 10_000): Promise<void> {
    const root = this.root;
    if (root.cutoffs.has(transport)) return;
    root.cutoffs.set(transport, root.sequence);
    await this.passedOn(timeoutMs);
    if (!root.ended) root.winston.remove(transport);
    await endAndFinish(transport, timeoutMs, root.clock);
    root.cutoffs.delete(transport);
  }

  /**
   * Ends the logger and awaits every transport's `finish`: everything logged so far is written.
   * Afterwards nothing more is logged.
   */
  async close(): Promise<void> {
    const root = this.root;
    if (root.ended) return;
    root.ended = true;
    const transports = [...root.winston.transports];
    const done = transports.map((transport) =>
      finished(transport).then(
        () => undefined,
        () => undefined, // a write error was reported to the transport's owner
      ),
    );
    // winston's Logger ends its transports as soon as its own writable side is done, while entries
    // may still wait in its readable buffer for a slow transport (they would be lost as "write after
    // end"): the logger first passes on everything it holds.
    await this.passedOn(Number.POSITIVE_INFINITY);
    if (root.dropped > 0) {
      this.write('warn', `${root.dropped} log lines dropped: a log destination could not keep up`, {});
      root.dropped = 0;
      await this.passedOn(Number.POSITIVE_INFINITY);
    }
    root.winston.end();
    await Promise.all(done);
  }

  /** Resolves once the logger holds no entry any more (all passed on to its transports), or after timeoutMs. */
  private async passedOn(timeoutMs: number): Promise<void> {
    const held = () => this.root.winston.writableLength + this.root.winston.readableLength;
    const clock = this.root.clock;
    const start = clock.now();
    while (held() > 0 && clock.now() - start <= timeoutMs) await delay(clock, 5);
  }
}

async function endAndFinish(transport: TransportStream, timeoutMs: number, clock: Clock): Promise<void> {
  let timer: Timer | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = clock.setTimeout(resolve, timeoutMs);
  });
  const done = finished(transport).then(
    () => undefined,
    () => undefined,
  );
  transport.end();
  await Promise.race([done, deadline]);
  clock.clearTimeout(timer);
}

/** The daemon's logger: the console (journald) transport at `level`. */
export function createLogger(
  level: LogLevel,
  env: NodeJS.ProcessEnv = process.env,
  clock: Clock = systemClock,
): Logger {
  return Logger.create(level, [], { transports: [consoleTransport(env)], clock });
}

/** A logger whose lines name the component ("[modbus] ..."). */
export function componentLogger(logger: Logger, component: string): Logger {
  return logger.child({ component });
}

/**
 * Before an exit: ends the logger and waits until every transport has finished, or `timeoutMs`.
 * The last lines before an exit are often its reason, and a process.exit() right after a write to
 * a pipe or a file stream can lose them.
 */
export async function flushLogger(
  logger: Logger,
  timeoutMs = 10_000,
  clock: Clock = systemClock,
): Promise<void> {
  let timer: Timer | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = clock.setTimeout(resolve, timeoutMs);
  });
  await Promise.race([logger.close(), deadline]);
  clock.clearTimeout(timer);
}
