import { join } from 'node:path';
import type { ScheduledTask } from 'node-cron';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import { localDateTime } from '../reading/time-format.js';
import type { Service } from '../service.js';
import { deleteExpiredCsvFiles } from './csv-retention.js';

/** One piece of daily upkeep. It may throw: the failure is logged and counted, the others still run. */
export interface HousekeepingJob {
  readonly name: string;
  run(now: number): void | Promise<void>;
}

/** Every day at 00:00 local time (cron fields: minute hour day-of-month month day-of-week). */
const AT_LOCAL_MIDNIGHT = '0 0 * * *';

/**
 * The daily housekeeping: node-cron calls it at local midnight, and it runs its jobs once per local
 * date. A Pi without a real-time clock jumps its clock at NTP sync: node-cron reports the skipped
 * midnights as missed executions, which ask once more, and the jobs run once for the new day, not
 * once per skipped day. It also runs at start, so upkeep happens on a box that is never up at
 * midnight. A failing job is logged and counted; it never stops the daemon or the other jobs.
 */
export class Housekeeping implements Service {
  readonly name = 'housekeeping';
  readonly required = false;
  private task: ScheduledTask | undefined;
  private lastDate: string | undefined;
  private runs = 0;
  private failures = 0;
  private lastError: string | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
    private readonly jobs: readonly HousekeepingJob[],
  ) {}

  async start(): Promise<void> {
    // node-cron loads with the housekeeping, after the services that serve readings are up.
    const cron = await import('node-cron');
    const task = cron.schedule(AT_LOCAL_MIDNIGHT, () => this.due(), {
      name: 'housekeeping',
      noOverlap: true,
      suppressMissedWarning: true,
    });
    task.on('execution:missed', () => this.due());
    this.task = task;
    await this.due();
  }

  async stop(): Promise<void> {
    await this.task?.destroy();
    this.task = undefined;
    await this.running;
  }

  /** Runs the jobs when the local date differs from the last run's; public for tests with a fake clock. */
  due(): Promise<void> {
    const now = this.context.now();
    const date = localDateTime(new Date(now)).slice(0, 10);
    if (date === this.lastDate || this.running) return this.running ?? Promise.resolve();
    this.lastDate = date;
    this.running = this.runJobs(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async runJobs(now: number): Promise<void> {
    this.runs += 1;
    for (const job of this.jobs) {
      try {
        await job.run(now);
      } catch (error) {
        this.failures += 1;
        this.lastError = `${job.name}: ${(error as Error).message}`;
        this.logger.error(`housekeeping: ${this.lastError}`);
      }
    }
    this.publishStatus();
  }

  private publishStatus(): void {
    this.context.services.set('housekeeping', {
      state: 'running',
      runs: this.runs,
      failures: this.failures,
      ...(this.lastDate ? { date: this.lastDate } : {}),
      ...(this.lastError ? { error: this.lastError } : {}),
    });
  }
}

/** CSV retention (sd_log.retention_days) over `<state>/sd/`, whether or not rows are being written. */
export function csvRetentionJob(context: AppContext, logger: Logger): HousekeepingJob {
  return {
    name: 'CSV retention',
    run(now) {
      const directory = join(context.config.config.paths.state, 'sd');
      const errors = deleteExpiredCsvFiles(
        directory,
        context.config.config.sd_log.retention_days,
        now,
        logger,
      );
      if (errors.length > 0) throw new Error(`${errors.length} file(s) not deleted: ${errors[0]!.message}`);
    },
  };
}
