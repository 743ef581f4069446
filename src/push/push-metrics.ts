import type { FamilySpec } from '../metrics/families.js';
import type { MetricsContributor } from '../metrics/gateway-samples.js';
import type { PushStatus } from './push-client.js';

/** The push targets in /metrics (docs/architecture.md#push), read at scrape time. */
const FAMILIES = {
  samples: {
    name: 'meter_gateway_push_samples_total',
    help: 'Samples of a push target by outcome: sent (acknowledged), dropped_too_old, dropped_rejected',
    type: 'counter',
    labels: ['target', 'outcome'],
  },
  retries: {
    name: 'meter_gateway_push_retries_total',
    help: 'Push attempts retried after 429, 5xx, a redirect or no answer',
    type: 'counter',
    labels: ['target'],
  },
  backlog: {
    name: 'meter_gateway_push_backlog_quarters',
    help: 'Complete quarter hours after the push target cursor',
    type: 'gauge',
    labels: ['target'],
  },
  cursor: {
    name: 'meter_gateway_push_cursor_seconds',
    help: 'Start of the last quarter hour the push target acknowledged (Unix s)',
    type: 'gauge',
    labels: ['target'],
  },
  up: {
    name: 'meter_gateway_push_clock_synced',
    help: "1 while the clock agrees with the push target's Date header, 0 while clock_unsynced",
    type: 'gauge',
    labels: ['target'],
  },
} satisfies Record<string, FamilySpec>;

export function pushMetrics(status: () => PushStatus[]): MetricsContributor {
  return {
    families: Object.values(FAMILIES),
    collect(add) {
      for (const target of status()) {
        const labels = { target: target.id };
        add(FAMILIES.samples, { ...labels, outcome: 'sent' }, target.counts.sent);
        add(FAMILIES.samples, { ...labels, outcome: 'dropped_too_old' }, target.counts.dropped_too_old);
        add(FAMILIES.samples, { ...labels, outcome: 'dropped_rejected' }, target.counts.dropped_rejected);
        add(FAMILIES.retries, labels, target.counts.retried);
        add(FAMILIES.backlog, labels, target.backlog_quarters);
        add(FAMILIES.cursor, labels, target.cursor);
        add(FAMILIES.up, labels, target.state === 'clock_unsynced' ? 0 : 1);
      }
    },
  };
}
