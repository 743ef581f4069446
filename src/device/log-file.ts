import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type TransportStream from 'winston-transport';
import type { AppContext } from '../context.js';
import { servicesLogTransport } from '../log-transports.js';
import type { AppConfig } from '../config/types.js';
import type { DeclaredOutput, OutputStatus, OutputView, StatusPort } from '../output.js';
import { Backoff, RECONNECT_CAP_MS } from '../backoff.js';
import type { Timer } from '../clock.js';
import { sdCardRoot } from './sd-card.js';

/** The status facts of the log file (docs/architecture.md#output-contract). */
export type LogFileFacts = {
  /** The file written while on, in the SD card folder. */
  file: string;
};
export type LogFileStatus = OutputStatus<LogFileFacts>;

/**
 * services.log: an additional log file `meter-gateway.log` in the SD card folder (beside the CSV
 * logs, served at /sdcard), winston's File transport (JSON
 * lines, rotated by size, five files, the newest always meter-gateway.log). journald always gets
 * the log; this file is for boxes without a journal or for handing a log to someone. Toggled live:
 * switching it off ends the transport, so every line logged before is in the file. A file that
 * cannot be opened rejects the apply (the runner retries it); one that fails while written (full
 * card) is closed and reopened by the output itself with capped backoff, shown as `retrying`.
 */
export class LogFile implements DeclaredOutput<boolean, LogFileFacts> {
  readonly name = 'log';
  readonly watches = ['services.log'] as const;
  private transport: TransportStream | undefined;
  private status: StatusPort<LogFileFacts> | undefined;
  /** The end of a switched-off transport, until it has finished. */
  private ending: Promise<void> | undefined;
  private readonly backoff = new Backoff(1000, RECONNECT_CAP_MS);
  private reopen: Timer | undefined;
  private lastFailure: string | undefined;

  constructor(private readonly context: AppContext) {}

  get path(): string {
    return join(sdCardRoot(this.context.config.config), 'meter-gateway.log');
  }

  select(config: AppConfig): boolean {
    return config.services.log;
  }

  enabled(on: boolean): boolean {
    return on;
  }

  async start(status: StatusPort<LogFileFacts>): Promise<void> {
    this.status = status;
  }

  async stop(): Promise<void> {
    this.cancelReopen();
    await this.detach();
    await this.ending;
  }

  /** On: the transport is opened (a file that cannot be opened rejects); off: it is ended. */
  apply({ slice: wanted }: OutputView<boolean>): LogFileFacts | void | Promise<void> {
    this.cancelReopen();
    this.backoff.reset();
    this.lastFailure = undefined;
    this.status?.trouble(undefined);
    // Nothing open: done at once, so a write that follows is not queued behind this one.
    if (!wanted) return this.transport ? this.detach() : undefined;
    if (!this.transport) this.open();
    return { file: 'meter-gateway.log' };
  }

  /** Opens the transport; throws why it could not. */
  private open(): void {
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      const transport = servicesLogTransport(this.path);
      transport.on('error', (error: Error) => this.failed(transport, error));
      this.transport = transport;
      this.context.logger.addTransport(transport);
    } catch (error) {
      throw new Error(`log file not opened: ${this.path}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** A file that cannot be written (full disk, permissions) is closed and reopened after a backoff. */
  private failed(transport: TransportStream, error: Error): void {
    if (this.transport !== transport) return;
    const failure = `${this.path}: ${error.message}`;
    // Not waited for: winston's File transport finishes only when its file stream does, and the
    // write error destroyed that stream, so ending it would hold stop() for endTransport's 10 s.
    void this.detach(0);
    const delay = this.backoff.next();
    // Each new reason once at error; the same one again only at debug.
    this.context.logger.log(
      failure === this.lastFailure ? 'debug' : 'error',
      `log file disabled: ${failure}; reopening in ${delay / 1000} s`,
    );
    this.lastFailure = failure;
    this.status?.trouble(failure);
    this.reopen = this.context.clock.setTimeout(() => {
      this.reopen = undefined;
      if (this.transport || !this.context.config.config.services.log) return;
      try {
        this.open();
        this.status?.trouble(undefined);
      } catch (reopenError) {
        this.failed(transport, reopenError as Error);
      }
    }, delay);
    this.reopen.unref();
  }

  private cancelReopen(): void {
    this.context.clock.clearTimeout(this.reopen);
    this.reopen = undefined;
  }

  /** Ends the transport: waits for it to finish writing, at most `timeoutMs` (endTransport's default). */
  private async detach(timeoutMs?: number): Promise<void> {
    const transport = this.transport;
    if (!transport) return;
    this.transport = undefined;
    const ending = this.context.logger.endTransport(transport, timeoutMs);
    this.ending = ending;
    await ending;
    if (this.ending === ending) this.ending = undefined;
  }
}
