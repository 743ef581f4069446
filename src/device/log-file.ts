import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type TransportStream from 'winston-transport';
import type { AppContext } from '../context.js';
import { servicesLogTransport } from '../log-transports.js';
import type { AppConfig } from '../config/types.js';
import type { Output, OutputView } from '../output.js';
import { sdCardRoot } from './sd-card.js';

/**
 * services.log: an additional log file `meter-gateway.log` in the SD card folder (beside the CSV
 * logs, served at /sdcard), winston's File transport (JSON
 * lines, rotated by size, five files, the newest always meter-gateway.log). journald always gets
 * the log; this file is for boxes without a journal or for handing a log to someone. Toggled live:
 * switching it off ends the transport, so every line logged before is in the file.
 */
export class LogFile implements Output<boolean> {
  readonly name = 'log';
  readonly watches = ['services.log'] as const;
  private transport: TransportStream | undefined;
  private failure: string | undefined;
  /** The end of a switched-off transport, until it has finished. */
  private ending: Promise<void> | undefined;

  constructor(private readonly context: AppContext) {}

  get path(): string {
    return join(sdCardRoot(this.context.config.config), 'meter-gateway.log');
  }

  select(config: AppConfig): boolean {
    return config.services.log;
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {
    await this.detach();
    await this.ending;
  }

  reconcile({ slice: wanted }: OutputView<boolean>): void {
    if (wanted && !this.transport) {
      this.failure = undefined;
      try {
        mkdirSync(dirname(this.path), { recursive: true });
        const transport = servicesLogTransport(this.path);
        transport.on('error', (error: Error) => this.failed(transport, error));
        this.transport = transport;
        this.context.logger.addTransport(transport);
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
  private failed(transport: TransportStream, error: Error): void {
    if (this.transport !== transport) return;
    this.failure = `${this.path}: ${error.message}`;
    // Not waited for: winston's File transport finishes only when its file stream does, and the
    // write error destroyed that stream, so ending it would hold stop() for endTransport's 10 s.
    void this.detach(0);
    this.context.logger.error(`log file disabled: ${this.failure}`);
    this.publishStatus();
  }

  private publishStatus(): void {
    if (this.failure !== undefined) {
      this.context.services.set('log', { state: 'error', error: this.failure });
      return;
    }
    this.context.services.set('log', {
      state: this.transport ? 'running' : 'stopped',
      ...(this.transport ? { file: 'meter-gateway.log' } : {}),
    });
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
