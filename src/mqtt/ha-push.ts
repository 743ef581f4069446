import type { Timer } from '../clock.js';
import { PUSH_STATES } from '../contracts/push.js';
import type { AppContext } from '../context.js';
import type { PushStatus } from '../push/push-client.js';
import type { BrokerLink } from './broker-link.js';
import type { EntityContributor, HaContribution } from './ha-contributors.js';
import type { DiscoveryTopics, HaEntity } from './ha-entities.js';

/**
 * The fleet push targets in Home Assistant (docs/architecture.md#push): per target four diagnostic
 * sensors on the gateway's device (state, backlog of quarter hours, last error, samples sent) that
 * read one retained JSON message, `meter-gateway/<system id>/push/<target id>`, the target's part of
 * GET /api/v1/push. The message is sent at connect, when the targets change and every minute; a
 * target that is gone has its sensors' configs cleared by discovery (an empty retained config
 * removes the entity) and its state message cleared too.
 */

/** What the MQTT output needs of the push: the targets' status and a call when the set changes. */
export interface PushOnMqtt {
  status(): PushStatus[];
  onChange(listener: () => void): () => void;
}

/** How often the state messages are sent again (the backlog and counters move with each batch). */
export const PUSH_STATE_INTERVAL_MS = 60_000;
/** HA keeps a sensor state of at most 255 characters. */
const STATE_CHARS = 255;

export function pushTopic(systemId: string, target: string): string {
  return `meter-gateway/${systemId}/push/${target}`;
}

/** The retained message of one target. */
export function pushMessage(target: PushStatus): string {
  return JSON.stringify({
    state: target.state,
    kind: target.kind,
    cursor: target.cursor > 0 ? new Date(target.cursor * 1000).toISOString() : null,
    backlog_quarters: target.backlog_quarters,
    last_error: target.last_error === null ? null : target.last_error.slice(0, STATE_CHARS),
    sent: target.counts.sent,
    batches: target.counts.batches,
    retried: target.counts.retried,
    dropped_too_old: target.counts.dropped_too_old,
    dropped_rejected: target.counts.dropped_rejected,
  });
}

const diagnostic = (id: string, key: string, name: string, extra: Partial<HaEntity> = {}): HaEntity => ({
  key: `push_${id}_${key}`,
  name: `Push ${id} ${name}`,
  device: 'gateway',
  entityCategory: 'diagnostic',
  ...extra,
});

/** The four diagnostic sensors of every running push target. */
export function pushContributor(ctx: AppContext, push: PushOnMqtt): EntityContributor {
  return (topics: DiscoveryTopics) =>
    push.status().flatMap((target): HaContribution[] => {
      const fields = (template: string) => ({
        state_topic: pushTopic(ctx.system.id, target.id),
        value_template: template,
        availability_topic: topics.availability,
        payload_available: 'online',
        payload_not_available: 'offline',
      });
      return [
        {
          entity: diagnostic(target.id, 'state', 'state', { deviceClass: 'enum', options: PUSH_STATES }),
          fields: fields('{{ value_json.state }}'),
        },
        {
          entity: diagnostic(target.id, 'backlog', 'backlog', {
            stateClass: 'measurement',
            unit: 'quarters',
          }),
          fields: fields('{{ value_json.backlog_quarters }}'),
        },
        {
          // A null error renders `None`: HA shows the sensor as unknown, not as the text "None".
          entity: diagnostic(target.id, 'last_error', 'last error'),
          fields: fields('{{ value_json.last_error }}'),
        },
        {
          entity: diagnostic(target.id, 'sent', 'samples sent', { stateClass: 'total_increasing' }),
          fields: fields('{{ value_json.sent }}'),
        },
      ];
    });
}

/** Publishes the targets' state messages on one link and asks for a new announcement when the set changes. */
export class PushMqtt {
  private timer: Timer | undefined;
  private readonly unsubscribe: () => void;
  private ids = new Set<string>();

  constructor(
    private readonly ctx: AppContext,
    private readonly link: BrokerLink,
    private readonly push: PushOnMqtt,
    private readonly reannounce: () => void,
  ) {
    this.ids = new Set(push.status().map((target) => target.id));
    this.unsubscribe = push.onChange(() => this.changed());
  }

  connected(): void {
    this.publish();
  }

  stop(): void {
    this.unsubscribe();
    if (this.timer !== undefined) this.ctx.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private changed(): void {
    const ids = new Set(this.push.status().map((target) => target.id));
    const same = ids.size === this.ids.size && [...ids].every((id) => this.ids.has(id));
    if (!same) {
      if (this.link.connected)
        for (const id of this.ids)
          if (!ids.has(id))
            this.link.publish(
              { topic: pushTopic(this.ctx.system.id, id), payload: '', qos: 1, retain: true },
              'drop',
            );
      this.ids = ids;
      // Discovery asks the contributors again: new targets are announced, removed ones cleared.
      this.reannounce();
    }
    this.publish();
  }

  private publish(): void {
    if (this.timer !== undefined) this.ctx.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.link.connected)
      for (const target of this.push.status())
        this.link.publish(
          {
            topic: pushTopic(this.ctx.system.id, target.id),
            payload: pushMessage(target),
            qos: 1,
            retain: true,
          },
          'drop',
        );
    this.timer = this.ctx.clock.setTimeout(() => this.publish(), PUSH_STATE_INTERVAL_MS);
    this.timer.unref();
  }
}
