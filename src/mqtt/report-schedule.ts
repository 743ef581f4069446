/**
 * When the template message goes out: one per services.report_interval (docs/architecture.md#intervals), on
 * the first reading at or after the due time, so never more often than readings arrive and never
 * with a value older than the reading it is sent for. Due times advance by exactly one period, so
 * the average period does not drift by the reading spacing; a reading up to half a reading spacing
 * early counts as on time (a 1 s meter with report_interval 1 would otherwise skip every reading
 * that arrives a millisecond early and publish every 2 s). A reading more than a period before
 * its due time means the wall clock went back (NTP step): the schedule restarts at that reading
 * instead of going silent until the clock catches up.
 */
export class ReportSchedule {
  private nextDue: number | undefined;

  /** Whether the reading at `at` (ms) is published; advances the schedule when it is. */
  take(at: number, periodMs: number, readingSpacingMs: number | undefined): boolean {
    const tolerance = Math.max(0, Math.min(periodMs, readingSpacingMs ?? 0)) / 2;
    const clockWentBack = this.nextDue !== undefined && at < this.nextDue - periodMs - tolerance;
    if (clockWentBack) this.nextDue = undefined;
    if (this.nextDue !== undefined && at < this.nextDue - tolerance) return false;
    const next = (this.nextDue ?? at) + periodMs;
    this.nextDue = next > at ? next : at + periodMs;
    return true;
  }

  /** The period changed or publishing restarted: the next reading is due at once. */
  reset(): void {
    this.nextDue = undefined;
  }
}
