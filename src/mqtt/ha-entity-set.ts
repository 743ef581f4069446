import type { Reading } from '../reading/reading.js';
import type { HaContribution } from './ha-contributors.js';
import {
  configTopic,
  discoveryConfig,
  METER_STATUS_ENTITY,
  type DeviceInfo,
  type DiscoveryTopics,
  type HaEntity,
  type MeterFacts,
} from './ha-entities.js';
import { entitiesOf } from './ha-meter-entities.js';

/**
 * The entities discovery announces (docs/architecture.md#home-assistant-discovery): the union of
 * what the meter sent since start (a quantity some telegrams omit does not flap), reset when another
 * meter identity appears, plus the meter status and the contributed entities; and the meters'
 * facts their HA devices are described with.
 */
export class HaEntitySet {
  private readonly entities = new Map<string, HaEntity>([[METER_STATUS_ENTITY.key, METER_STATUS_ENTITY]]);
  private meterId: string | undefined;
  private meters: MeterFacts = { identity: {}, mbus: [] };

  /** Takes in a reading's entities; true when the meters' facts changed (every config is then re-sent). */
  observe(reading: Reading, meterId: string | undefined): boolean {
    if (meterId !== undefined && this.meterId !== undefined && meterId !== this.meterId) {
      this.entities.clear();
      this.entities.set(METER_STATUS_ENTITY.key, METER_STATUS_ENTITY);
    }
    if (meterId !== undefined) this.meterId = meterId;
    for (const entity of entitiesOf(reading)) this.entities.set(entity.key, entity);
    const facts: MeterFacts = {
      identity: { ...reading.identity },
      mbus: reading.mbus.map(({ bus, meterId: id, deviceType }) => ({ bus, meterId: id, deviceType })),
    };
    if (JSON.stringify(facts) === JSON.stringify(this.meters)) return false;
    this.meters = facts;
    return true;
  }

  /** Config topic -> discovery config of every entity: the meter's first, then the contributed ones. */
  configs(
    device: DeviceInfo,
    topics: DiscoveryTopics,
    contributions: readonly HaContribution[],
  ): Map<string, Record<string, unknown>> {
    const configs = new Map<string, Record<string, unknown>>();
    for (const entity of this.entities.values()) {
      const topic = configTopic(topics.prefix, device.systemId, entity.key);
      configs.set(topic, discoveryConfig(entity, device, topics, this.meters));
    }
    for (const { entity, fields } of contributions) {
      const topic = configTopic(topics.prefix, device.systemId, entity.key, entity.component);
      configs.set(topic, discoveryConfig(entity, device, topics, this.meters, fields));
    }
    return configs;
  }
}
