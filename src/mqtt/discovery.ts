import type { Reading } from '../reading/reading.js';
import { HaAnnouncer } from './ha-announcer.js';
import { HaAvailability } from './ha-availability.js';
import { BirthAnswer } from './ha-birth.js';
import { RetainedConfigs } from './ha-retained-configs.js';
import { HaStates } from './ha-states.js';
import { gatewayTopics } from './ha-topics.js';
import type { DiscoveryLink, DiscoverySettings, DiscoverySources } from './ha-topics.js';

export { availabilityWill, gatewayTopics } from './ha-topics.js';
// Loaded with discovery, only when MQTT is switched on: the gateway's own entities.
export { diagnosticsOf, gatewayContributor } from './ha-gateway-entities.js';
export { gatewayFactsOf } from './ha-gateway-facts.js';
export type { DiscoveryLink, DiscoverySettings, DiscoverySources } from './ha-topics.js';

/**
 * Home Assistant MQTT discovery (docs/architecture.md#home-assistant-discovery): the retained
 * configs (./ha-announcer.ts), the state messages (./ha-states.ts), the availability
 * (./ha-availability.ts) and HA's birth message. Disabled, it clears everything it finds.
 */
export class HomeAssistantDiscovery {
  private readonly announcer: HaAnnouncer;
  private readonly states: HaStates;
  private readonly birth: BirthAnswer;
  private readonly availability: HaAvailability;

  constructor(
    private readonly link: DiscoveryLink,
    private settings: DiscoverySettings,
    private readonly sources: DiscoverySources,
  ) {
    const publish = (topic: string, payload: string) => this.publishRetained(topic, payload);
    this.announcer = new HaAnnouncer(link, sources.contributors ?? [], publish);
    this.states = new HaStates(link, () => this.settings, sources);
    this.availability = new HaAvailability(link, () => this.topics.availability);
    this.birth = new BirthAnswer(
      () => this.link.connected && this.announceAll(),
      sources.random,
      sources.clock,
    );
    this.subscribeTopics(settings, 'subscribe');
    this.announcer.renew(this.topics);
  }

  get topics() {
    return gatewayTopics(this.settings.device.systemId, this.settings.prefix);
  }

  /** New settings: topics follow the prefix; configs are re-sent with the new device facts. */
  configure(settings: DiscoverySettings): void {
    const before = this.settings;
    if (JSON.stringify(before) === JSON.stringify(settings)) return;
    if (before.prefix !== settings.prefix || before.device.systemId !== settings.device.systemId) {
      this.subscribeTopics(before, 'unsubscribe');
      this.announcer.moved();
    }
    this.settings = settings;
    this.subscribeTopics(settings, 'subscribe');
    if (this.link.connected) this.announceAll();
  }

  /** A (re)connect: the broker may have lost every retained message. */
  onConnect(): void {
    this.announceAll();
  }

  onReading(reading: Reading, meterId: string | undefined): void {
    if (!this.settings.enabled) return;
    this.announcer.observe(reading, meterId);
    if (!this.link.connected) return;
    this.announcer.announce(this.settings, this.topics);
    this.states.publishAtRate();
    this.availability.set('online');
  }

  /** The meter state changed: stale readings make the entities unavailable; a new status is sent. */
  onMeter(stale: boolean, statusChanged: boolean): void {
    if (stale && this.settings.enabled && this.link.connected) this.availability.set('offline');
    if (statusChanged) this.states.publishMeterStatus();
  }

  onMessage(topic: string, payload: Buffer, retained: boolean): void {
    if (topic !== BirthAnswer.statusTopic(this.settings.prefix))
      this.announcer.onMessage(this.settings, this.topics, { topic, payload, retained });
    else if (this.settings.enabled) this.birth.onStatus(payload, retained);
  }

  /** Availability offline before a clean disconnect (the last will covers the unclean one). */
  farewell(): { topic: string; payload: string; qos: 1; retain: true } | undefined {
    return this.settings.enabled ? this.availability.farewell() : undefined;
  }

  stop(): void {
    this.birth.stop();
    this.states.stop();
    this.announcer.stop();
    this.subscribeTopics(this.settings, 'unsubscribe');
  }

  private announceAll(): void {
    this.announcer.renew(this.topics);
    if (!this.settings.enabled) return this.announcer.withdraw(this.settings, this.topics);
    this.availability.forget();
    this.announcer.announce(this.settings, this.topics);
    this.states.publishMeterStatus();
    const fresh = this.sources.latest() !== undefined;
    if (fresh) this.states.publishLatest();
    this.availability.set(fresh ? 'online' : 'offline');
  }

  /** HA's status topic and the config topics under our system id (to find configs to clear). */
  private subscribeTopics(settings: DiscoverySettings, how: 'subscribe' | 'unsubscribe'): void {
    this.link[how](BirthAnswer.statusTopic(settings.prefix), 'state');
    this.link[how](RetainedConfigs.filterOf(settings.prefix, settings.device.systemId), 'state');
  }

  private publishRetained(topic: string, payload: string): boolean {
    return this.link.publish({ topic, payload, qos: 1, retain: true }, 'drop');
  }
}
