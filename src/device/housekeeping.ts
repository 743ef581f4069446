import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ScheduledTask } from 'node-cron';
import { nodeCron } from '../config/cron.js';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import { localDateTime } from '../reading/time-format.js';
import type { AppConfig } from '../config/types.js';
import type { DeclaredOutput, OutputStatus, StatusPort } from '../output.js';
import {
  hasHistoryLeftovers,
  removedMeterFolders,
  removeHistoryLeftovers,
  upkeepRemovedMeters,
} from '../history/upkeep.js';
import { deleteExpiredCsvFiles } from './csv-retention.js';
import { sdCardRoot } from './sd-card.js';
import { hasLogLeftovers, removeLogLeftovers } from './log-upkeep.js';

/** One piece of daily upkeep. It may throw: the failure is logged and counted, the others still run. */
export interface HousekeepingJob {
  readonly name: string;
  /** Whether there is anything for the job to keep (a daemon without CSV files needs no CSV retention). */
  needed(): boolean;
  run(now: number): void | Promise<void>;
}

/** What housekeeping watches: whether each job may have gained something to keep. */
export interface HousekeepingSlice {
  sd: boolean;
  log: boolean;
  /** The ids of `meters[]`: a meter removed from it leaves a history folder to keep. */
  meters: string[];
}

/** The status facts of housekeeping (docs/architecture.md#output-contract). */
export type HousekeepingFacts = {
  /** The midnight task is scheduled (some job has something to keep). */
  scheduled: boolean;
  /** Days the jobs ran for, and jobs that failed, since the start (live). */
  runs?: number;
  failures?: number;
  /** The local date of the last run. */
  date?: string;
  /** The last job that failed, and why. */
  last_error?: string;
};
export type HousekeepingStatus = OutputStatus<HousekeepingFacts>;

/** Every day at 00:00 local time (cron fields: minute hour day-of-month month day-of-week). */
const AT_LOCAL_MIDNIGHT = '0 0 * * *';

/**
 * The daily housekeeping: node-cron calls it at local midnight, and it runs its jobs once per local
 * date. A Pi without a real-time clock jumps its clock at NTP sync: node-cron reports the skipped
 * midnights as missed executions, which ask once more, and the jobs run once for the new day, not
 * once per skipped day. It also runs at start, so upkeep happens on a box that is never up at
 * midnight. node-cron loads only once a job has something to keep. A failing job is logged and
 * counted; it never stops the daemon or the other jobs.
 */
export class Housekeeping implements DeclaredOutput<HousekeepingSlice, HousekeepingFacts> {
  readonly name = 'housekeeping';
  /**
   * CSV logging switched on gives CSV retention something to keep, services.log the log upkeep, a
   * meter removed from `meters` the history upkeep.
   */
  readonly watches = ['services.sd.enable', 'services.log', 'meters'] as const;
  private task: ScheduledTask | undefined;
  private lastDate: string | undefined;
  private runs = 0;
  private failures = 0;
  private lastError: string | undefined;
  private running: Promise<void> | undefined;
  private status: StatusPort<HousekeepingFacts> | undefined;

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
    private readonly jobs: readonly HousekeepingJob[],
  ) {}

  private stopped = false;

  async start(status: StatusPort<HousekeepingFacts>): Promise<void> {
    this.stopped = false;
    this.status = status;
  }

  select(config: AppConfig): HousekeepingSlice {
    return {
      sd: config.services.sd.enable,
      log: config.services.log,
      meters: [...listedMeterIds(config)],
    };
  }

  /** A job may have gained something to keep (CSV logging or the log file switched): schedule if so. */
  async apply(): Promise<HousekeepingFacts> {
    await this.schedule();
    return { scheduled: this.task !== undefined };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.task?.destroy();
    this.task = undefined;
    await this.running;
  }

  /**
   * Once some job has something to keep: node-cron is loaded (only then) and the midnight task
   * scheduled, and the jobs run for today.
   */
  private async schedule(): Promise<void> {
    if (this.task || !this.jobs.some((job) => job.needed())) return;
    const cron = nodeCron();
    if (this.task || this.stopped) return;
    const task = cron.schedule(AT_LOCAL_MIDNIGHT, () => this.due(), {
      name: 'housekeeping',
      noOverlap: true,
      suppressMissedWarning: true,
    });
    task.on('execution:missed', () => this.due());
    this.task = task;
    await this.due();
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
    this.status?.facts({
      runs: this.runs,
      failures: this.failures,
      date: this.lastDate,
      last_error: this.lastError,
    });
  }
}

function sdDirectory(context: AppContext): string {
  return sdCardRoot(context.config.config);
}

/** CSV retention (sd_log.retention_days) over the SD card folder, whether or not rows are being written. */
export function csvRetentionJob(context: AppContext, logger: Logger): HousekeepingJob {
  return {
    name: 'CSV retention',
    needed: () => context.config.config.services.sd.enable || existsSync(sdDirectory(context)),
    run(now) {
      const directory = sdDirectory(context);
      const errors = deleteExpiredCsvFiles(
        directory,
        context.config.config.sd_log.retention_days,
        now,
        logger,
      );
      failIfAny(errors);
    },
  };
}

/** One error out of a job's list of per-file errors, or nothing when all went well. */
function failIfAny(errors: readonly Error[]): void {
  if (errors.length > 0) throw new Error(`${errors.length} file(s) not deleted: ${errors[0]!.message}`);
}

/** services.log upkeep over the SD card folder, where the log file lives (./log-upkeep.ts). */
export function logUpkeepJob(context: AppContext, logger: Logger): HousekeepingJob {
  const directory = () => sdDirectory(context);
  const on = () => context.config.config.services.log;
  return {
    name: 'log upkeep',
    needed: () => hasLogLeftovers(directory(), on()),
    run: (now) => failIfAny(removeLogLeftovers(directory(), on(), now, logger)),
  };
}

/** The ids of the further meters in the configuration (their history folders are kept). */
function listedMeterIds(config: AppConfig): Set<string> {
  return new Set(config.meters.map((meter) => meter.id));
}

/**
 * History upkeep over `<state>/history/` (../history/upkeep.ts): leftovers of the ring files, and
 * the folders of removed meters after `history.keep_removed_days`.
 */
export function historyUpkeepJob(context: AppContext, logger: Logger): HousekeepingJob {
  const directory = () => join(context.config.config.paths.state, 'history');
  const metersDirectory = () => join(directory(), 'meters');
  const listed = () => listedMeterIds(context.config.config);
  return {
    name: 'history upkeep',
    needed: () =>
      hasHistoryLeftovers(directory()) || removedMeterFolders(metersDirectory(), listed()).length > 0,
    run: (now) =>
      failIfAny([
        ...removeHistoryLeftovers(directory(), now, logger),
        ...upkeepRemovedMeters(
          metersDirectory(),
          listed(),
          context.config.config.history.keep_removed_days,
          now,
          logger,
        ),
      ]),
  };
}
