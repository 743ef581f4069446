import type { Reading } from '../reading/reading.js';
import type { BrokerLink } from './broker-link.js';
import type { LastWill } from './connection-options.js';
import {
  configTopic,
  discoveryConfig,
  entitiesOf,
  METER_STATUS_ENTITY,
  METER_STATUS_HEARTBEAT_S,
  stateOf,
  type DeviceInfo,
  type DiscoveryTopics,
  type HaEntity,
  type MeterFacts,
} from './ha-entities.js';

export type DiscoveryLink = Pick<BrokerLink, 'publish' | 'subscribe' | 'unsubscribe' | 'connected'>;

export interface DiscoverySettings {
  enabled: boolean;
  prefix: string;
  /**
   * At most one state message per this many ms (mqtt.discovery.state_interval; 0: every reading).
   * A reading inside the interval is not lost: the latest one goes out when the interval ends.
   */
  stateIntervalMs: number;
  device: DeviceInfo;
}

/** Home Assistant publishes this on `<prefix>/status` when it (re)starts (HA MQTT birth message). */
const HA_BIRTH_PAYLOAD = 'online';
/** HA's advice: wait a random moment after the birth message so that not every device answers at once. */
const BIRTH_DELAY_MS = { min: 1000, max: 3000 };

export function gatewayTopics(systemId: string, prefix: string): DiscoveryTopics {
  return {
    prefix,
    state: `meter-gateway/${systemId}/state`,
    availability: `meter-gateway/${systemId}/availability`,
    meterStatus: `meter-gateway/${systemId}/meter_status`,
  };
}

/** Last will: the broker marks every entity unavailable when the gateway vanishes without DISCONNECT. */
export function availabilityWill(systemId: string): LastWill {
  return { topic: gatewayTopics(systemId, '').availability, payload: 'offline', qos: 1, retain: true };
}

/**
 * Home Assistant MQTT discovery (docs/architecture.md#home-assistant-discovery). Entities are the union of
 * what the meter sent since start (a quantity some telegrams omit does not flap); a new meter identity starts
 * a new set. Retained configs found on the broker under our system id that are not in the set are cleared
 * (empty retained payload), which also removes entities of an earlier run or of a swapped meter.
 * Availability is online only while the reading is fresh: a stale meter makes every entity
 * unavailable instead of showing old totals. The meter status has its own retained topic, re-sent
 * every METER_STATUS_HEARTBEAT_S, so it shows NO DATA while the readings are unavailable and
 * expires in HA when the gateway is gone. Disabled, it clears everything it finds.
 */
export class HomeAssistantDiscovery {
  private settings: DiscoverySettings;
  private entities = new Map<string, HaEntity>([[METER_STATUS_ENTITY.key, METER_STATUS_ENTITY]]);
  private meterId: string | undefined;
  private meters: MeterFacts = { identity: {}, mbus: [] };
  private statusTimer: NodeJS.Timeout | undefined;
  /** Keys whose config the broker retains under our system id, as far as this run knows. */
  private readonly retainedConfigs = new Set<string>();
  private announced = new Set<string>();
  private availability: 'online' | 'offline' | undefined;
  private birthTimer: NodeJS.Timeout | undefined;
  private stateTimer: NodeJS.Timeout | undefined;
  /** When the last state message went out (0: none yet, so the first reading's goes at once). */
  private lastStateAt = 0;

  constructor(
    private readonly link: DiscoveryLink,
    settings: DiscoverySettings,
    private readonly latest: () => Reading | undefined,
    private readonly meterStatus: () => string,
    private readonly random: () => number = Math.random,
  ) {
    this.settings = settings;
    this.subscribeTopics(settings);
  }

  get topics(): DiscoveryTopics {
    return gatewayTopics(this.settings.device.systemId, this.settings.prefix);
  }

  /** New settings: topics follow the prefix; configs are re-sent with the new device facts. */
  configure(settings: DiscoverySettings): void {
    const before = this.settings;
    if (JSON.stringify(before) === JSON.stringify(settings)) return;
    if (before.prefix !== settings.prefix || before.device.systemId !== settings.device.systemId) {
      this.unsubscribeTopics(before);
      this.retainedConfigs.clear();
    }
    this.settings = settings;
    this.subscribeTopics(settings);
    if (this.link.connected) this.announceAll();
  }

  /** A (re)connect: the broker may have lost every retained message, so send all again. */
  onConnect(): void {
    this.announceAll();
  }

  onReading(reading: Reading, meterId: string | undefined): void {
    if (!this.settings.enabled) return;
    const present = entitiesOf(reading);
    if (meterId !== undefined && this.meterId !== undefined && meterId !== this.meterId) {
      this.entities.clear();
      this.entities.set(METER_STATUS_ENTITY.key, METER_STATUS_ENTITY);
    }
    if (meterId !== undefined) this.meterId = meterId;
    for (const entity of present) this.entities.set(entity.key, entity);
    this.updateMeterFacts(reading);
    if (!this.link.connected) return;
    this.announceConfigs();
    this.clearVanished();
    this.publishStateAtRate();
    this.setAvailability('online');
  }

  /** The latest reading's state now, or when the state interval since the last one has passed. */
  private publishStateAtRate(): void {
    const wait = this.lastStateAt + this.settings.stateIntervalMs - Date.now();
    if (wait <= 0 || this.settings.stateIntervalMs <= 0) {
      this.publishLatestState();
      return;
    }
    this.stateTimer ??= setTimeout(() => {
      this.stateTimer = undefined;
      if (this.settings.enabled && this.link.connected) this.publishLatestState();
    }, wait);
  }

  /** The state of the store's latest reading (never a stale one: latest() is undefined then). */
  private publishLatestState(): void {
    const reading = this.latest();
    if (!reading) return;
    this.lastStateAt = Date.now();
    this.publish(this.topics.state, JSON.stringify(stateOf(reading, entitiesOf(reading))), 0, false);
  }

  /** The store went stale (or the meter status changed): entities go unavailable. */
  onMeterStale(): void {
    if (this.settings.enabled && this.link.connected) this.setAvailability('offline');
  }

  /** The meter status changed (or its heartbeat is due): the status entity's state. */
  publishMeterStatus(): void {
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.statusTimer = undefined;
    if (!this.settings.enabled || !this.link.connected) return;
    this.publish(this.topics.meterStatus, this.meterStatus(), 1, true);
    this.statusTimer = setTimeout(() => this.publishMeterStatus(), METER_STATUS_HEARTBEAT_S * 1000);
    this.statusTimer.unref();
  }

  /** Identity and M-Bus channels for the meters' HA devices; changed facts re-send the configs. */
  private updateMeterFacts(reading: Reading): void {
    const facts: MeterFacts = {
      identity: { ...reading.identity },
      mbus: reading.mbus.map(({ bus, meterId, deviceType }) => ({ bus, meterId, deviceType })),
    };
    if (JSON.stringify(facts) === JSON.stringify(this.meters)) return;
    this.meters = facts;
    this.announced.clear();
  }

  onMessage(topic: string, payload: Buffer, retained: boolean): void {
    const { prefix } = this.settings;
    if (topic === `${prefix}/status`) {
      if (!retained && payload.toString() === HA_BIRTH_PAYLOAD) this.scheduleBirthAnswer();
      return;
    }
    const key = this.keyOfConfigTopic(topic);
    if (key === undefined || !retained || payload.length === 0) return;
    this.retainedConfigs.add(key);
    if (!this.settings.enabled || this.entities.size > 0) this.clearVanished();
  }

  /** Availability offline before a clean disconnect (the last will covers the unclean one). */
  farewell(): { topic: string; payload: string; qos: 1; retain: true } | undefined {
    return this.settings.enabled
      ? { topic: this.topics.availability, payload: 'offline', qos: 1, retain: true }
      : undefined;
  }

  stop(): void {
    if (this.birthTimer) clearTimeout(this.birthTimer);
    this.birthTimer = undefined;
    if (this.stateTimer) clearTimeout(this.stateTimer);
    this.stateTimer = undefined;
    if (this.statusTimer) clearTimeout(this.statusTimer);
    this.statusTimer = undefined;
    this.unsubscribeTopics(this.settings);
  }

  private announceAll(): void {
    if (!this.settings.enabled) {
      // Switched off: remove what an earlier run left (configs are cleared as they arrive).
      this.publish(this.topics.availability, '', 1, true);
      this.publish(this.topics.meterStatus, '', 1, true);
      this.clearVanished();
      return;
    }
    this.announced.clear();
    this.availability = undefined;
    this.announceConfigs();
    this.clearVanished();
    this.publishMeterStatus();
    const reading = this.latest();
    if (reading) {
      this.publishLatestState();
      this.setAvailability('online');
    } else {
      this.setAvailability('offline');
    }
  }

  private announceConfigs(): void {
    for (const entity of this.entities.values()) {
      if (this.announced.has(entity.key)) continue;
      const config = discoveryConfig(entity, this.settings.device, this.topics, this.meters);
      const topic = configTopic(this.settings.prefix, this.settings.device.systemId, entity.key);
      if (!this.publish(topic, JSON.stringify(config), 1, true)) continue;
      this.announced.add(entity.key);
      this.retainedConfigs.add(entity.key);
    }
  }

  /** Clears retained configs of keys not in the entity set (all of them when disabled). */
  private clearVanished(): void {
    for (const key of this.retainedConfigs) {
      if (this.settings.enabled && this.entities.has(key)) continue;
      const topic = configTopic(this.settings.prefix, this.settings.device.systemId, key);
      if (this.publish(topic, '', 1, true)) this.retainedConfigs.delete(key);
    }
  }

  private setAvailability(value: 'online' | 'offline'): void {
    if (this.availability === value) return;
    if (this.publish(this.topics.availability, value, 1, true)) this.availability = value;
  }

  private scheduleBirthAnswer(): void {
    if (this.birthTimer || !this.settings.enabled) return;
    const delay = BIRTH_DELAY_MS.min + (BIRTH_DELAY_MS.max - BIRTH_DELAY_MS.min) * this.random();
    this.birthTimer = setTimeout(() => {
      this.birthTimer = undefined;
      if (this.link.connected) this.announceAll();
    }, delay);
    this.birthTimer.unref();
  }

  private keyOfConfigTopic(topic: string): string | undefined {
    const head = `${this.settings.prefix}/sensor/${this.settings.device.systemId}/`;
    if (!topic.startsWith(head) || !topic.endsWith('/config')) return undefined;
    const key = topic.slice(head.length, -'/config'.length);
    return key.includes('/') || key === '' ? undefined : key;
  }

  private subscribeTopics(settings: DiscoverySettings): void {
    this.link.subscribe(`${settings.prefix}/status`);
    this.link.subscribe(configTopic(settings.prefix, settings.device.systemId, '+'));
  }

  private unsubscribeTopics(settings: DiscoverySettings): void {
    this.link.unsubscribe(`${settings.prefix}/status`);
    this.link.unsubscribe(configTopic(settings.prefix, settings.device.systemId, '+'));
  }

  private publish(topic: string, payload: string, qos: 0 | 1, retain: boolean): boolean {
    return this.link.publish({ topic, payload, qos, retain }, 'drop');
  }
}
