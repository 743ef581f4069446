import type { AppContext } from '../context.js';
import type { OutputView, StatusPort } from '../output.js';
import type { BrokerLink } from './broker-link.js';
import { CommandGate } from './command-gate.js';
import { linkOptionsOf, type LinkOptions } from './connection-options.js';
import type { HomeAssistantFeed } from './ha-feed.js';
import {
  inactiveOf,
  linkFactsOf,
  LIVE_FACTS,
  loadLinkModules,
  type LinkModules,
  type MqttFacts,
} from './link-state.js';
import type { MqttView, TemplatePublisher } from './template-publisher.js';
import type { QuarterMqtt } from './quarters-publisher.js';

export const MQTT_SERVICE = 'mqtt';

/**
 * The MQTT output's broker connection: one BrokerLink (retrying with capped exponential backoff)
 * kept in line with the settings; new link options replace it, no settings (`view` undefined)
 * close it. The link's state and counters are reported to the runner through the status port
 * (docs/architecture.md#output-contract): the runner writes the 'mqtt' status line.
 */
export class LinkSupervisor {
  /** The link while one exists (connected or retrying). */
  link: BrokerLink | undefined;
  private linkKey: string | undefined;
  private loggedError: string | undefined;
  private modules: LinkModules | undefined;
  /** The settings in force; undefined while the output is stopped. */
  view: OutputView<MqttView> | undefined;
  /** Where live facts and trouble go, from the output's start to its stop. */
  status: StatusPort<MqttFacts> | undefined;
  /** One for the output's life: a new link (new settings) does not refill the rate bucket. */
  private readonly gate: CommandGate;

  constructor(
    private readonly ctx: AppContext,
    private readonly discovery: HomeAssistantFeed,
    private readonly reports: TemplatePublisher,
    /** The quarter hours as a fleet path (docs/architecture.md#push), when the daemon wires one. */
    private readonly quarters?: QuarterMqtt,
  ) {
    this.gate = new CommandGate(ctx.clock, ctx.refusals, ctx.logger);
  }

  /**
   * Brings the link in line with `view`; resolves to the static facts once the client code is
   * loaded and the link is there (or gone, when the settings want none), rejects when no link can
   * be made with these settings (options the client refuses, client code missing).
   */
  async apply(): Promise<MqttFacts> {
    const view = this.view;
    const inactive = view ? inactiveOf(view) : {};
    if (!view || inactive) {
      await this.teardown();
      this.publishStatus();
      return inactive ?? {};
    }
    if (!this.modules) {
      // Switched on for the first time: connecting as soon as the code is loaded (milliseconds).
      try {
        this.modules = await loadLinkModules();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(`cannot load the MQTT client: ${message}`, { cause: error });
      }
    }
    const settings = view.slice;
    const will = this.discovery.will(this.modules.discovery, settings);
    const built = linkOptionsOf(settings.mqtt, this.ctx.system.id, will);
    if (!built.ok) {
      // Not running as configured: the apply rejects (docs/architecture.md#output-contract).
      await this.teardown();
      this.publishStatus();
      throw new Error(built.reason);
    }
    const key = JSON.stringify(built.options);
    if (this.link && key === this.linkKey) {
      this.discovery.configure(settings);
    } else {
      this.linkKey = key;
      if (!this.link) this.createLink(this.modules, built.options);
      else this.discovery.configure(settings);
      this.reports.restartSchedule();
      this.link!.connectNow(built.options);
    }
    this.publishStatus();
    return { broker: settings.mqtt.url, discovery: settings.mqtt.discovery.enable };
  }

  /** Tries the broker again at once when the link is waiting for its next attempt. */
  reconnectNow(): void {
    const state = this.link?.status().state;
    if (this.link && state !== 'connected' && state !== 'connecting') this.link.connectNow();
  }

  private createLink(loaded: LinkModules, options: LinkOptions): void {
    const link = new loaded.BrokerLink(options, { clock: this.ctx.clock, gate: this.gate });
    this.discovery.attach(loaded.discovery, link, this.view!.slice);
    const url = () => this.view?.slice.mqtt.url ?? this.ctx.config.config.mqtt.url;
    link.on('connect', () => {
      this.loggedError = undefined;
      this.discovery.connected();
      void this.quarters?.connected(link);
      this.ctx.logger.info(`connected to ${url()}`);
      this.publishStatus();
    });
    link.on('disconnect', () => {
      this.ctx.logger.warn(`connection to ${url()} lost`);
      this.publishStatus();
    });
    link.on('status', () => {
      const { error, retryInMs } = link.status();
      // Each distinct error once: a broker that stays down must not fill the journal.
      if (error !== undefined && error !== this.loggedError && retryInMs !== undefined) {
        this.loggedError = error;
        this.ctx.logger.warn(`${url()}: ${error} (retrying with backoff, next in ${retryInMs} ms)`);
      }
      this.publishStatus();
    });
    this.link = link;
  }

  async teardown(): Promise<void> {
    const link = this.link;
    this.link = undefined;
    this.linkKey = undefined;
    if (!link) return;
    this.quarters?.detach();
    const farewell = this.discovery.detach();
    link.removeAllListeners();
    await link.close(farewell);
  }

  /** Reports the link's live facts and trouble; without a link, none. */
  publishStatus(): void {
    const port = this.status;
    if (!port) return;
    if (!this.link) {
      port.facts(Object.fromEntries(LIVE_FACTS.map((key) => [key, undefined])) as MqttFacts);
      port.trouble(undefined);
      return;
    }
    const { facts, trouble } = linkFactsOf(this.link.status(), this.reports.errors);
    port.facts(facts);
    port.trouble(trouble);
  }
}
