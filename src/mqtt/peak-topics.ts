import type { PeakCommand } from './peak-commands.js';

/**
 * The peak guard's MQTT topics (docs/architecture.md#peak-guard-outputs), beside the gateway's
 * other topics under `meter-gateway/<system id>/` (./ha-topics.ts).
 */
export interface PeakTopics {
  /** Retained: the guard's state, the JSON of GET /api/v1/peak. */
  state: string;
  /** Retained: `{enabled, limit_kw, mode}` of services.peak_guard (what the controls show). */
  settings: string;
  /** Not retained: one JSON message per warning, shed, restore, unavoidable, new_month_peak. */
  event: string;
  /** Command topics: `<base>/<command>/set`. */
  command: Readonly<Record<PeakCommand, string>>;
}

export function peakTopics(systemId: string): PeakTopics {
  const base = `meter-gateway/${systemId}/peak`;
  return {
    state: `${base}/state`,
    settings: `${base}/settings`,
    event: `${base}/event`,
    command: { limit: `${base}/limit/set`, mode: `${base}/mode/set`, enable: `${base}/enable/set` },
  };
}
