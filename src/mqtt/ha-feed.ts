import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import type { AppConfig } from '../config/types.js';
import type { AppContext } from '../context.js';
import type { MeterHandle } from '../reading/meter-registry.js';
import type { MeterState } from '../reading/meter-state.js';
import type { Reading } from '../reading/reading.js';
import type { BrokerLink } from './broker-link.js';
import type { LastWill } from './connection-options.js';
import type * as discoveryModule from './discovery.js';
import type { DiscoverySettings, HomeAssistantDiscovery } from './discovery.js';
import type { DeviceInfo } from './ha-entities.js';
import type { MqttView } from './template-publisher.js';
import { actionButtonsContributor } from './action-buttons.js';
import { metersContributor, MetersStatePublisher } from './ha-meters.js';
import { peakContributor } from './ha-peak.js';
import type { PeakCommandCounts } from './peak-commands.js';
import { PeakMqtt, type PeakFeed } from './peak-publisher.js';
import { peakTopics } from './peak-topics.js';
import { PricesMqtt, pricesContributor } from './ha-prices.js';
import { LimiterMqtt, limiterContributor, limiterTopics, type LimiterOnMqtt } from './limiter-mqtt.js';
import { PushMqtt, pushContributor, type PushOnMqtt } from './ha-push.js';

/** The peak guard as the MQTT output sees it (docs/architecture.md#peak-guard-outputs). */
export interface PeakOnMqtt {
  feed: PeakFeed;
  counts: PeakCommandCounts;
}

/** The discovery module, loaded with the MQTT client when MQTT is first switched on. */
export type DiscoveryModule = typeof discoveryModule;

/** http://<host>:<port>/ of the API: the bind address when it is a specific one, else this host's address. */
export function configurationUrlOf(http: AppConfig['http']): string | undefined {
  if (http.port === 0) return undefined;
  let host = http.host;
  if (host === '0.0.0.0' || host === '::' || host === '') {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && !address.internal && address.family === 'IPv4');
    host = external?.address ?? hostname();
  }
  return `http://${isIP(host) === 6 ? `[${host}]` : host}:${http.port}/`;
}

/**
 * Home Assistant discovery on the current broker link (./discovery.ts does the protocol): one
 * HomeAssistantDiscovery per link, fed with the readings and the meter status, given new device
 * facts when the settings change, and asked for its farewell when the link closes.
 */
export class HomeAssistantFeed {
  private discovery: HomeAssistantDiscovery | undefined;
  private lastStatus: string | undefined;
  private link: BrokerLink | undefined;
  private actionIds = '[]';
  /** The enabled actions' ids of the slice last applied. */
  private enabledActions: string[] = [];
  /** The further meters of the slice last applied. */
  private furtherMeters: readonly MeterHandle[] = [];
  /** The further meters' states and availability (./ha-meters.ts). */
  private meters: MetersStatePublisher | undefined;
  /** mqtt.discovery.state_interval in ms, as last configured. */
  private stateIntervalMs = 0;
  /** The peak guard's topics on the current link, when the daemon has a guard. */
  private peakMqtt: PeakMqtt | undefined;
  /** The day-ahead price messages on the current link (./ha-prices.ts). */
  private pricesMqtt: PricesMqtt | undefined;
  /** The export limiter's topics on the current link (./limiter-mqtt.ts), when the daemon has one. */
  private limiterMqtt: LimiterMqtt | undefined;
  /** The push targets' diagnostic messages on the current link (./ha-push.ts). */
  private pushMqtt: PushMqtt | undefined;

  /** `pressAction`: what a press of an action's Home Assistant button does (calls the action). */
  constructor(
    private readonly ctx: AppContext,
    private readonly pressAction?: (actionId: string) => void,
    private readonly peak?: PeakOnMqtt,
    private readonly limiter?: LimiterOnMqtt,
    private readonly push?: PushOnMqtt,
  ) {}

  /** The last will of a link: every entity unavailable when the gateway vanishes (discovery on). */
  will(module: DiscoveryModule, settings: MqttView): LastWill | undefined {
    return settings.mqtt.discovery.enable ? module.availabilityWill(this.ctx.system.id) : undefined;
  }

  attach(module: DiscoveryModule, link: BrokerLink, settings: MqttView): void {
    this.furtherMeters = settings.meters;
    this.enabledActions = settings.actionIds;
    const facts = module.gatewayFactsOf(this.ctx);
    const discovery: HomeAssistantDiscovery = new module.HomeAssistantDiscovery(
      link,
      this.settingsOf(settings),
      {
        clock: this.ctx.clock,
        latest: () => this.ctx.store.latest,
        meterStatus: () => this.ctx.store.meter.status,
        contributors: [
          module.gatewayContributor(facts),
          ...this.actionButtons(),
          metersContributor(this.ctx.system.id, () => this.furtherMeters),
          ...this.peakEntities(),
          pricesContributor(this.ctx),
          ...this.limiterEntities(),
          ...(this.push ? [pushContributor(this.ctx, this.push)] : []),
        ],
        heartbeat: () => {
          const payload = JSON.stringify(module.diagnosticsOf(facts));
          link.publish({ topic: discovery.topics.diagnostics, payload, qos: 1, retain: true }, 'drop');
        },
      },
    );
    link.on('message', (name, payload, retained) => discovery.onMessage(name, payload, retained));
    this.discovery = discovery;
    this.link = link;
    this.meters = new MetersStatePublisher(
      this.ctx,
      link,
      () => this.stateIntervalMs,
      () => {
        if (link.connected) discovery.onConnect();
      },
      settings.meters,
    );
    this.actionIds = JSON.stringify(this.enabledActionIds());
    this.attachPeak(link, settings, () => {
      if (link.connected) discovery.onConnect();
    });
    this.pricesMqtt = new PricesMqtt(
      this.ctx,
      link,
      () => {
        if (link.connected) discovery.onConnect();
      },
      settings.priceSource,
    );
    this.attachLimiter(link, settings, () => {
      if (link.connected) discovery.onConnect();
    });
    if (this.push)
      this.pushMqtt = new PushMqtt(this.ctx, link, this.push, () => {
        if (link.connected) discovery.onConnect();
      });
  }

  /** The limiter's state, events and commands on this link; `reannounce` when it is switched on or off. */
  private attachLimiter(link: BrokerLink, settings: MqttView, reannounce: () => void): void {
    if (!this.limiter) return;
    const { feed, counts } = this.limiter;
    const limiter = new LimiterMqtt(this.ctx, link, feed, counts, reannounce, settings.exportLimiter);
    link.on('message', (name, payload, retained) => limiter.onMessage(name, payload, retained));
    this.limiterMqtt = limiter;
  }

  private limiterEntities() {
    if (!this.limiter) return [];
    const enabled = () => this.ctx.config.config.services.export_limiter.enabled;
    return [limiterContributor(enabled, () => limiterTopics(this.ctx.system.id))];
  }

  /** The guard's state, events and commands on this link; `reannounce` when it is switched on or off. */
  private attachPeak(link: BrokerLink, settings: MqttView, reannounce: () => void): void {
    if (!this.peak) return;
    const peak = new PeakMqtt(
      this.ctx,
      link,
      this.peak.feed,
      this.peak.counts,
      reannounce,
      settings.peakGuard,
    );
    link.on('message', (name, payload, retained) => peak.onMessage(name, payload, retained));
    this.peakMqtt = peak;
  }

  private peakEntities() {
    if (!this.peak) return [];
    const enabled = () => this.ctx.config.config.services.peak_guard.enabled;
    return [peakContributor(enabled, () => peakTopics(this.ctx.system.id))];
  }

  /** Stops discovery on the link that goes; returns the message to send before DISCONNECT. */
  detach(): ReturnType<HomeAssistantDiscovery['farewell']> {
    const discovery = this.discovery;
    this.discovery = undefined;
    this.meters?.stop();
    this.meters = undefined;
    this.peakMqtt?.stop();
    this.peakMqtt = undefined;
    this.pricesMqtt?.stop();
    this.pricesMqtt = undefined;
    this.limiterMqtt?.stop();
    this.limiterMqtt = undefined;
    this.pushMqtt?.stop();
    this.pushMqtt = undefined;
    discovery?.stop();
    this.link = undefined;
    return discovery?.farewell();
  }

  /** The broker may have lost every retained message: everything is sent again. */
  connected(): void {
    this.discovery?.onConnect();
    this.peakMqtt?.connected();
    this.pricesMqtt?.connected();
    this.limiterMqtt?.connected();
    this.pushMqtt?.connected();
  }

  configure(settings: MqttView): void {
    this.discovery?.configure(this.settingsOf(settings));
    // Discovery asks its contributors again when it announces: a changed set of actions is announced.
    this.enabledActions = settings.actionIds;
    this.furtherMeters = settings.meters;
    this.meters?.sync(settings.meters);
    this.peakMqtt?.configure(settings.peakGuard);
    this.limiterMqtt?.configure(settings.exportLimiter);
    this.pricesMqtt?.configure(settings.priceSource);
    const actionIds = JSON.stringify(settings.actionIds);
    if (actionIds === this.actionIds) return;
    this.actionIds = actionIds;
    if (this.link?.connected) this.discovery?.onConnect();
  }

  /** One HA button per enabled action (docs/architecture.md#actions), when presses can call actions. */
  private actionButtons() {
    const press = this.pressAction;
    return press ? [actionButtonsContributor(() => this.enabledActionIds(), press)] : [];
  }

  private enabledActionIds(): string[] {
    return this.enabledActions;
  }

  onReading(reading: Reading): void {
    this.discovery?.onReading(reading, this.ctx.store.meter.identity.id);
  }

  onMeter(meter: MeterState): void {
    this.discovery?.onMeter(this.ctx.store.latest === undefined, meter.status !== this.lastStatus);
    this.lastStatus = meter.status;
  }

  private settingsOf(settings: MqttView): DiscoverySettings {
    this.stateIntervalMs = settings.mqtt.discovery.state_interval * 1000;
    const device: DeviceInfo = {
      systemId: this.ctx.system.id,
      name: settings.systemName,
      model: this.ctx.system.model,
      firmware: this.ctx.system.firmware,
    };
    const { discovery } = settings.mqtt;
    const url = discovery.configuration_url || configurationUrlOf(this.ctx.config.config.http);
    if (url !== undefined) device.configurationUrl = url;
    return {
      enabled: discovery.enable,
      prefix: discovery.prefix,
      stateIntervalMs: discovery.state_interval * 1000,
      device,
    };
  }
}
