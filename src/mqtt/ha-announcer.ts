import type { Reading } from '../reading/reading.js';
import { Contributions, type CommandLink, type EntityContributor } from './ha-contributors.js';
import type { DiscoveryTopics } from './ha-entities.js';
import { HaEntitySet } from './ha-entity-set.js';
import { RetainedConfigs } from './ha-retained-configs.js';
import type { DiscoverySettings } from './ha-topics.js';

/**
 * The retained discovery configs of the entity set (docs/architecture.md#home-assistant-discovery):
 * the meter's entities (./ha-entity-set.ts) and the contributed ones (./ha-contributors.ts) are
 * sent once per announcement, and every retained config under this gateway's system id that is
 * not in the set is cleared, which also removes entities of an earlier run or of a swapped meter.
 */
export class HaAnnouncer {
  private readonly entities = new HaEntitySet();
  private readonly contributions: Contributions;
  private readonly configs: RetainedConfigs;

  constructor(
    link: CommandLink,
    contributors: readonly EntityContributor[],
    private readonly publishRetained: (topic: string, payload: string) => boolean,
  ) {
    this.contributions = new Contributions(contributors, link);
    this.configs = new RetainedConfigs(publishRetained);
  }

  /** Discovery switched off: removes what an earlier run left (configs are cleared as they arrive). */
  withdraw(settings: DiscoverySettings, topics: DiscoveryTopics): void {
    this.publishRetained(topics.availability, '');
    this.publishRetained(topics.meterStatus, '');
    this.publishRetained(topics.diagnostics, '');
    this.announce(settings, topics, false);
  }

  /** A reading's entities join the set; new meter facts make every config go out again. */
  observe(reading: Reading, meterId: string | undefined): void {
    if (this.entities.observe(reading, meterId)) this.configs.forgetSent();
  }

  /** Asks the contributors again (a reconnect, HA's birth, new settings) and re-sends everything. */
  renew(topics: DiscoveryTopics): void {
    this.contributions.collect(topics);
    this.configs.forgetSent();
  }

  /**
   * Sends the configs not sent yet (none when `send` is false or discovery is off), then clears
   * the retained ones not in the set (all of them when off).
   */
  announce(settings: DiscoverySettings, topics: DiscoveryTopics, send = true): void {
    const configs = settings.enabled
      ? this.entities.configs(settings.device, topics, this.contributions.list)
      : new Map<string, Record<string, unknown>>();
    if (send) for (const [topic, config] of configs) this.configs.send(topic, config);
    this.configs.clearExcept(new Set(configs.keys()));
  }

  /**
   * A message on a discovery topic: a command of a contributed entity is run; a retained config
   * of ours found on the broker is cleared unless it is in the set. False for any other topic.
   */
  onMessage(settings: DiscoverySettings, topics: DiscoveryTopics, message: IncomingMessage): boolean {
    const { topic, payload, retained } = message;
    if (settings.enabled && this.contributions.handle(topic, payload, retained)) return true;
    if (!RetainedConfigs.isConfigTopic(settings.prefix, settings.device.systemId, topic)) return false;
    if (retained && payload.length > 0) {
      this.configs.found(topic);
      this.announce(settings, topics, false);
    }
    return true;
  }

  /** A new prefix or system id: the old config topics are no longer ours to track. */
  moved(): void {
    this.configs.forgetAll();
  }

  stop(): void {
    this.contributions.stop();
  }
}

export interface IncomingMessage {
  topic: string;
  payload: Buffer;
  retained: boolean;
}
