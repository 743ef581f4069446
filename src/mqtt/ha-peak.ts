import { PEAK_GUARD_SCHEMA, PEAK_LIMIT_MODES } from '../config/peak-schema.js';
import type { EntityContributor, HaContribution } from './ha-contributors.js';
import type { DiscoveryTopics, HaEntity } from './ha-entities.js';
import type { PeakTopics } from './peak-topics.js';

/**
 * The peak guard's Home Assistant entities on the gateway's device
 * (docs/architecture.md#peak-guard-outputs), contributed through ./ha-contributors.ts and announced
 * only while the guard is enabled (switched off, discovery clears their retained configs). The
 * sensors read the retained peak state (GET /api/v1/peak as JSON); the number, select and switch
 * read the retained peak settings and write through the peak command topics; the event entity
 * takes the peak event messages, whose `event_type` HA requires.
 */

/** The event types of the event entity and of the events topic. */
export const PEAK_EVENT_TYPES = ['warning', 'shed', 'restore', 'unavoidable', 'new_month_peak'] as const;

/** States of the guard in which the warning binary sensor is on (the prediction reached L − warn margin). */
const WARNING_STATES = ['warning', 'shedding', 'over_limit'];

const entity = (key: string, name: string, extra: Partial<HaEntity> = {}): HaEntity => ({
  key: `peak_${key}`,
  name,
  device: 'gateway',
  ...extra,
});

const power = (key: string, name: string): HaEntity =>
  entity(key, name, { deviceClass: 'power', stateClass: 'measurement', unit: 'kW' });

/**
 * The sensors: entity and Jinja template over the state JSON. A null value renders `None`, which
 * HA's MQTT sensor takes as unknown (not as a number).
 */
const SENSORS: readonly [HaEntity, string][] = [
  [power('running', 'Peak window demand'), '{{ value_json.running_kw }}'],
  [power('predicted', 'Peak window predicted demand'), '{{ value_json.predicted_kw }}'],
  [power('allowed', 'Peak allowed power'), '{{ value_json.allowed_kw }}'],
  [power('headroom', 'Peak headroom'), '{{ value_json.headroom_kw }}'],
  [power('month', 'Month peak'), '{{ value_json.month_peak.kw if value_json.month_peak else None }}'],
  [
    entity('month_at', 'Month peak time', { deviceClass: 'timestamp' }),
    '{{ value_json.month_peak.at if value_json.month_peak else None }}',
  ],
  [power('rolling', 'Peak rolling average'), '{{ value_json.rolling.kw }}'],
  // HA's monetary sensors take state_class total or none; a marginal cost is no running total.
  [
    entity('marginal_cost', 'Peak marginal cost', { deviceClass: 'monetary', unit: 'EUR' }),
    '{{ value_json.marginal_eur }}',
  ],
  [
    entity('remaining', 'Peak window remaining', {
      deviceClass: 'duration',
      stateClass: 'measurement',
      unit: 's',
      entityCategory: 'diagnostic',
    }),
    '{{ value_json.window.remaining_s if value_json.window else None }}',
  ],
];

const limit = PEAK_GUARD_SCHEMA.limit_kw;

function availabilityOf(topics: DiscoveryTopics) {
  return {
    availability_topic: topics.availability,
    payload_available: 'online',
    payload_not_available: 'offline',
  };
}

function sensors(topics: DiscoveryTopics, peak: PeakTopics): HaContribution[] {
  const contributions: HaContribution[] = SENSORS.map(([sensor, template]) => ({
    entity: sensor,
    fields: { state_topic: peak.state, value_template: template, ...availabilityOf(topics) },
  }));
  contributions.push({
    entity: entity('warning', 'Peak warning', { component: 'binary_sensor', deviceClass: 'problem' }),
    fields: {
      state_topic: peak.state,
      value_template: `{{ 'ON' if value_json.state in ${JSON.stringify(WARNING_STATES)} else 'OFF' }}`,
      ...availabilityOf(topics),
    },
  });
  contributions.push({
    entity: entity('event', 'Peak guard event', { component: 'event' }),
    fields: { state_topic: peak.event, event_types: [...PEAK_EVENT_TYPES] },
  });
  return contributions;
}

/** The settings entities: their commands go to the peak command topics (handled by ./peak-publisher.ts). */
function controls(peak: PeakTopics): HaContribution[] {
  return [
    {
      entity: entity('limit', 'Peak limit', {
        component: 'number',
        deviceClass: 'power',
        unit: 'kW',
        entityCategory: 'config',
      }),
      fields: {
        state_topic: peak.settings,
        value_template: '{{ value_json.limit_kw }}',
        command_topic: peak.command.limit,
        min: limit.min,
        max: limit.max,
        step: 0.1,
        mode: 'box',
      },
    },
    {
      entity: entity('mode', 'Peak limit mode', {
        component: 'select',
        entityCategory: 'config',
        options: PEAK_LIMIT_MODES,
      }),
      fields: {
        state_topic: peak.settings,
        value_template: '{{ value_json.mode }}',
        command_topic: peak.command.mode,
      },
    },
    {
      entity: entity('guard', 'Peak guard', { component: 'switch', entityCategory: 'config' }),
      fields: {
        state_topic: peak.settings,
        value_template: "{{ 'ON' if value_json.enabled else 'OFF' }}",
        command_topic: peak.command.enable,
        payload_on: 'ON',
        payload_off: 'OFF',
      },
    },
  ];
}

/** The guard's entities while `enabled()`, none otherwise (so discovery clears their configs). */
export function peakContributor(enabled: () => boolean, peak: () => PeakTopics): EntityContributor {
  return (topics) => (enabled() ? [...sensors(topics, peak()), ...controls(peak())] : []);
}
