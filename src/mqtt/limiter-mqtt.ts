import { EXPORT_LIMITER_MODES, EXPORT_LIMITER_SCHEMA } from '../config/export-limiter-schema.js';
import type { AppContext } from '../context.js';
import { LIMITER_STATES } from '../contracts/export-limiter.js';
import type { ExportLimiter, LimiterState, LimiterStatus } from '../export-limiter/limiter.js';
import type { EntityContributor, HaContribution } from './ha-contributors.js';
import type { DiscoveryTopics, HaEntity } from './ha-entities.js';
import type { LimiterSettingsView } from './template-publisher.js';
import type { DiscoveryLink } from './ha-topics.js';
import { LIMITER_SETTINGS, type LimiterCommand, type LimiterCommandCounts } from './limiter-commands.js';
import { ServiceMqtt, serviceTopics, type ServiceTopics } from './service-mqtt.js';

/**
 * The export limiter on MQTT and in Home Assistant (docs/architecture.md#export-limiter), beside
 * the gateway's other topics under `meter-gateway/<system id>/export_limiter/`:
 *
 * - `state`, retained: the JSON of GET /api/v1/export-limiter, sent when it differs from the last
 *   one sent (at most once per control step);
 * - `settings`, retained: `{enabled, mode, target_w}`, what the select and the number show;
 * - `event`, not retained: one message per change of the limiter's state, `event_type` the new
 *   state (what HA's event entity requires), with `from`, `decision`, `reason` and `at`;
 * - `mode/set` and `target/set`: commands (./limiter-commands.ts).
 *
 * While the limiter is disabled nothing but the commands is served: switching it off clears both
 * retained topics and has discovery withdraw the entities (./service-mqtt.ts).
 */

export type LimiterTopics = ServiceTopics<LimiterCommand>;

export function limiterTopics(systemId: string): LimiterTopics {
  return serviceTopics(systemId, LIMITER_SETTINGS.folder, LIMITER_SETTINGS.commands);
}

/** What the MQTT output needs of the limiter: its status and its emitter (followed, never polled). */
export interface LimiterFeed {
  status(): LimiterStatus;
  onStatus(listener: (status: LimiterStatus) => void): () => void;
}

export function limiterFeedOf(limiter: ExportLimiter): LimiterFeed {
  return {
    status: () => limiter.status(),
    onStatus(listener) {
      limiter.on('status', listener);
      return () => limiter.off('status', listener);
    },
  };
}

/** The limiter as the MQTT output sees it. */
export interface LimiterOnMqtt {
  feed: LimiterFeed;
  counts: LimiterCommandCounts;
}

const entity = (key: string, name: string, extra: Partial<HaEntity> = {}): HaEntity => ({
  key: `export_limiter_${key}`,
  name,
  device: 'gateway',
  ...extra,
});

const watts = (key: string, name: string): HaEntity =>
  entity(key, name, { deviceClass: 'power', stateClass: 'measurement', unit: 'W' });

/** The limiter's entities on the gateway's device, while it is enabled. */
export function limiterContributor(enabled: () => boolean, topicsOf: () => LimiterTopics): EntityContributor {
  return (topics: DiscoveryTopics): HaContribution[] => {
    if (!enabled()) return [];
    const own = topicsOf();
    const availability = {
      availability_topic: topics.availability,
      payload_available: 'online',
      payload_not_available: 'offline',
    };
    const sensor = (subject: HaEntity, template: string): HaContribution => ({
      entity: subject,
      fields: { state_topic: own.state, value_template: template, ...availability },
    });
    const target = EXPORT_LIMITER_SCHEMA.target_w;
    return [
      sensor(
        entity('state', 'Export limiter state', { deviceClass: 'enum', options: LIMITER_STATES }),
        '{{ value_json.state }}',
      ),
      // A null value renders None, which HA's MQTT sensor takes as unknown.
      sensor(watts('limit', 'Export limiter commanded limit'), '{{ value_json.limit_w }}'),
      sensor(watts('grid', 'Export limiter grid power'), '{{ value_json.grid_w }}'),
      {
        entity: entity('mode', 'Export limiter mode', {
          component: 'select',
          entityCategory: 'config',
          options: EXPORT_LIMITER_MODES,
        }),
        fields: {
          state_topic: own.settings,
          value_template: '{{ value_json.mode }}',
          command_topic: own.command.mode,
        },
      },
      {
        entity: entity('target', 'Export limiter target', {
          component: 'number',
          deviceClass: 'power',
          unit: 'W',
          entityCategory: 'config',
        }),
        fields: {
          state_topic: own.settings,
          value_template: '{{ value_json.target_w }}',
          command_topic: own.command.target,
          min: target.min,
          max: target.max,
          step: 1,
          mode: 'box',
        },
      },
      {
        entity: entity('event', 'Export limiter event', { component: 'event' }),
        fields: { state_topic: own.event, event_types: [...LIMITER_STATES] },
      },
    ];
  };
}

/** The limiter's topics on one broker link (see the file comment and ./service-mqtt.ts). */
export class LimiterMqtt extends ServiceMqtt<LimiterCommand, LimiterSettingsView> {
  private lastState: LimiterState | undefined;

  constructor(
    ctx: AppContext,
    link: DiscoveryLink,
    private readonly feed: LimiterFeed,
    counts: LimiterCommandCounts,
    reannounce: () => void,
    settings: LimiterSettingsView,
  ) {
    super(ctx, link, LIMITER_SETTINGS, counts, reannounce, settings);
    this.lastState = feed.status().state;
    this.removers.push(feed.onStatus((status) => this.onStatus(status)));
  }

  protected publishCurrentState(): void {
    this.publishState(this.feed.status());
  }

  protected settingsMessage({ enabled, mode, target_w }: LimiterSettingsView): object {
    return { enabled, mode, target_w };
  }

  private onStatus(status: LimiterStatus): void {
    if (!this.enabled() || !status.enabled) return;
    const from = this.lastState;
    this.lastState = status.state;
    if (from !== undefined && from !== status.state) this.publishEvent(status, from);
    this.publishState(status);
  }

  private publishState(status: LimiterStatus): void {
    this.sendState(() => {
      if (!status.enabled) return undefined;
      const payload = JSON.stringify(status);
      return { key: payload, payload: () => payload };
    });
  }

  private publishEvent(status: LimiterStatus, from: LimiterState): void {
    this.sendEvent({
      event_type: status.state,
      from,
      decision: status.decision,
      reason: status.reason,
      at: new Date(this.ctx.now()).toISOString(),
    });
  }
}
