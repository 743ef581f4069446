import { PEAK_SETTINGS, type PeakCommand } from './peak-commands.js';
import { serviceTopics, type ServiceTopics } from './service-mqtt.js';

/**
 * The peak guard's MQTT topics (docs/architecture.md#peak-guard-outputs) under
 * `meter-gateway/<system id>/peak/`: `state` (GET /api/v1/peak's JSON), `settings`
 * (`{enabled, limit_kw, mode}` of services.peak_guard), `event` (one message per warning, shed,
 * restore, unavoidable, new_month_peak) and `<command>/set`.
 */
export type PeakTopics = ServiceTopics<PeakCommand>;

export function peakTopics(systemId: string): PeakTopics {
  return serviceTopics(systemId, PEAK_SETTINGS.folder, PEAK_SETTINGS.commands);
}
