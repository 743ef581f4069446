import { join } from 'node:path';
import winston from 'winston';
import type { AppContext } from '../context.js';
import type { Service } from '../service.js';

/** Size at which the file rotates, and how many rotated files are kept. */
const MAX_BYTES = 1024 * 1024;
const MAX_FILES = 5;

/**
 * services.log: an additional log file `<state>/meter-gateway.log` with timestamps, rotated by size
 * (meter-gateway.log, meter-gateway1.log ... up to MAX_FILES). journald always gets the log; this
 * file is for boxes without a journal or for handing a log to someone. Toggled live.
 */
export class LogFile implements Service {
  readonly name = 'log file';
  readonly required = false;
  private transport: winston.transports.FileTransportInstance | undefined;
  private readonly onConfigChange = (paths: readonly string[]) => {
    if (paths.includes('services.log')) this.reconcile();
  };

  constructor(private readonly context: AppContext) {}

  get path(): string {
    return join(this.context.config.config.paths.state, 'meter-gateway.log');
  }

  async start(): Promise<void> {
    this.context.config.subscribe('log-file', 'change', this.onConfigChange);
    this.reconcile();
  }

  async stop(): Promise<void> {
    this.context.config.off('change', this.onConfigChange);
    this.detach();
  }

  private reconcile(): void {
    const wanted = this.context.config.config.services.log;
    if (wanted && !this.transport) {
      this.transport = new winston.transports.File({
        filename: this.path,
        maxsize: MAX_BYTES,
        maxFiles: MAX_FILES,
        tailable: true,
        format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
      });
      this.context.logger.add(this.transport);
    } else if (!wanted) {
      this.detach();
    }
    this.context.services.set('log', {
      state: this.transport ? 'running' : 'stopped',
      ...(this.transport ? { file: this.path } : {}),
    });
  }

  private detach(): void {
    if (!this.transport) return;
    this.context.logger.remove(this.transport);
    this.transport.close?.();
    this.transport = undefined;
  }
}
