import {
  createWriteStream,
  existsSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  type WriteStream,
} from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { AppContext } from '../context.js';
import type { LogEntry, LogSink } from '../log.js';
import type { AppConfig } from '../config/types.js';
import type { Output, OutputView } from '../output.js';

/** Size at which the file rotates, and how many files are kept (the current one included). */
const MAX_BYTES = 1024 * 1024;
const MAX_FILES = 5;

/**
 * services.log: an additional log file `<state>/meter-gateway.log` with timestamps, rotated by size
 * (meter-gateway.log, meter-gateway1.log ... up to MAX_FILES). journald always gets the log; this
 * file is for boxes without a journal or for handing a log to someone. Toggled live.
 */
export class LogFile implements Output<boolean> {
  readonly name = 'log file';
  readonly required = false;
  readonly watches = ['services.log'] as const;
  private sink: RotatingFileSink | undefined;
  private failure: string | undefined;

  constructor(private readonly context: AppContext) {}

  get path(): string {
    return join(this.context.config.config.paths.state, 'meter-gateway.log');
  }

  select(config: AppConfig): boolean {
    return config.services.log;
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {
    await this.detach();
  }

  reconcile({ slice: wanted }: OutputView<boolean>): void {
    if (wanted && !this.sink) {
      this.failure = undefined;
      try {
        const sink: RotatingFileSink = new RotatingFileSink(this.path, (error) => this.failed(sink, error));
        this.sink = sink;
        this.context.logger.addSink(sink);
      } catch (error) {
        this.failure = `${this.path}: ${(error as Error).message}`;
        this.context.logger.error(`log file not opened: ${this.failure}`);
      }
    } else if (!wanted) {
      this.failure = undefined;
      void this.detach();
    }
    this.publishStatus();
  }

  /** A file that cannot be written (full disk, permissions) is closed and shown as an error. */
  private failed(sink: RotatingFileSink, error: Error): void {
    if (this.sink !== sink) return;
    this.failure = `${this.path}: ${error.message}`;
    void this.detach();
    this.context.logger.error(`log file disabled: ${this.failure}`);
    this.publishStatus();
  }

  private publishStatus(): void {
    if (this.failure !== undefined) {
      this.context.services.set('log', { state: 'error', error: this.failure });
      return;
    }
    this.context.services.set('log', {
      state: this.sink ? 'running' : 'stopped',
      ...(this.sink ? { file: this.path } : {}),
    });
  }

  private async detach(): Promise<void> {
    const sink = this.sink;
    if (!sink) return;
    this.sink = undefined;
    this.context.logger.removeSink(sink);
    await sink.close();
  }
}

/**
 * The log file: one JSON object per line (`timestamp` in ISO 8601 UTC, `level`, `message`, the
 * entry's fields). When the next line would take the file past MAX_BYTES, the files shift
 * (meter-gateway3.log -> meter-gateway4.log ... meter-gateway.log -> meter-gateway1.log, the oldest
 * is removed) and a new meter-gateway.log starts: the newest lines are always in meter-gateway.log.
 */
class RotatingFileSink implements LogSink {
  private stream: WriteStream;
  private size: number;
  private closed = false;
  /** Streams of rotated files that are still writing out what they were given. */
  private readonly ending = new Set<Promise<void>>();

  constructor(
    private readonly path: string,
    private readonly onError: (error: Error) => void,
  ) {
    this.size = existsSync(path) ? statSync(path).size : 0;
    this.stream = this.open();
  }

  write(entry: LogEntry): void {
    if (this.closed) return;
    const line = `${JSON.stringify({ timestamp: entry.time.toISOString(), level: entry.level, message: entry.message, ...entry.meta })}\n`;
    const bytes = Buffer.byteLength(line);
    if (this.size > 0 && this.size + bytes > MAX_BYTES) {
      try {
        this.rotate();
      } catch (error) {
        this.onError(error as Error);
        return;
      }
    }
    this.stream.write(line);
    this.size += bytes;
  }

  /** Resolves when every line given so far is in its file. */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.end(this.stream);
    }
    await Promise.all(this.ending);
  }

  /**
   * The file is opened synchronously, so the stream's descriptor exists before any rename: lines
   * still queued for a rotated file go to that file (the descriptor follows the renamed inode).
   */
  private open(): WriteStream {
    const stream = createWriteStream(this.path, { fd: openSync(this.path, 'a') });
    stream.on('error', (error) => this.onError(error));
    return stream;
  }

  private rotate(): void {
    this.end(this.stream);
    const numbered = (n: number) => this.path.replace(/\.log$/, `${n}.log`);
    rmSync(numbered(MAX_FILES - 1), { force: true });
    for (let n = MAX_FILES - 2; n >= 1; n--)
      if (existsSync(numbered(n))) renameSync(numbered(n), numbered(n + 1));
    // Gone when someone removed it by hand: its lines go with the old descriptor.
    if (existsSync(this.path)) renameSync(this.path, numbered(1));
    this.stream = this.open();
    this.size = 0;
  }

  private end(stream: WriteStream): void {
    const done = finished(stream).then(
      () => undefined,
      () => undefined, // a write error was reported by the stream's 'error' listener
    );
    this.ending.add(done);
    void done.then(() => this.ending.delete(done));
    stream.end();
  }
}
