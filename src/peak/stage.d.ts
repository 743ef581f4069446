/**
 * A stage of the peak guard (docs/architecture.md#peak-guard) as the settings store it under
 * `services.peak_guard.stages`: declared once for the guard and for the settings page, which
 * imports it type-only (its separate compilation emits nothing for a declaration file).
 */
export interface PeakStage {
  id: string;
  /** Action id run to shed the load. */
  shed: string;
  /** Action id run to restore it. */
  restore: string;
  relief_kw: number;
  /** Sub-meter measuring the load, when there is one. */
  meter?: string;
  min_on_s: number;
  min_off_s: number;
  /** Actions whose `when`/`schedule` triggers are suppressed while the stage is shed. */
  locks: string[];
}
