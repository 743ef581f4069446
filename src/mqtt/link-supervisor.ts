import type { AppContext } from '../context.js';
import type { OutputView } from '../output.js';
import type { BrokerLink } from './broker-link.js';
import { CommandGate } from './command-gate.js';
import { linkOptionsOf, type LinkOptions } from './connection-options.js';
import type { HomeAssistantFeed } from './ha-feed.js';
import { inactiveOf, loadLinkModules, mqttStatusOf, type Inactive, type LinkModules } from './link-state.js';
import type { MqttView, TemplatePublisher } from './template-publisher.js';
import type { QuarterMqtt } from './quarters-publisher.js';

export const MQTT_SERVICE = 'mqtt';

/**
 * The MQTT output's broker connection: one BrokerLink (retrying with capped exponential backoff)
 * kept in line with the settings; new link options replace it, `apply(true)` retries at once, no
 * settings (`view` undefined) close it. State and counters go to the 'mqtt' service line.
 */
export class LinkSupervisor {
  /** The link while one exists (connected or retrying). */
  link: BrokerLink | undefined;
  private linkKey: string | undefined;
  private inactive: Inactive | undefined = {
    state: 'stopped',
    reason: 'not started',
    reasonKey: 'mqtt.reason.not_started',
  };
  private loggedError: string | undefined;
  private modules: LinkModules | undefined;
  /** The settings in force; undefined while the output is stopped. */
  view: OutputView<MqttView> | undefined;
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

  /** The last apply could not make a link (options the client refuses, client code missing). */
  get failed(): boolean {
    return this.inactive?.state === 'error';
  }

  /**
   * Brings the link in line with `view`; resolves when the client code is loaded and the link is
   * there, rejects when no link can be made with these settings.
   */
  apply(force: boolean): Promise<void> {
    const loading = this.settle(force);
    this.publishStatus();
    return loading ?? Promise.resolve();
  }

  private settle(force: boolean): Promise<void> | undefined {
    this.inactive = inactiveOf(this.view);
    if (this.inactive) return this.teardown().then(() => this.publishStatus());
    if (!this.modules) {
      // Switched on for the first time: connecting as soon as the code is loaded (milliseconds).
      return loadLinkModules().then(
        (loaded) => {
          this.modules = loaded;
          return this.apply(force);
        },
        (error: Error) => {
          const reason = `cannot load the MQTT client: ${error.message}`;
          this.inactive = { state: 'error', reason };
          this.publishStatus();
          throw new Error(reason, { cause: error });
        },
      );
    }
    const settings = this.view!.slice;
    const will = this.discovery.will(this.modules.discovery, settings);
    const built = linkOptionsOf(settings.mqtt, this.ctx.system.id, will);
    if (!built.ok) {
      // Not running as configured: the apply rejects (docs/architecture.md#output-contract).
      this.inactive = { state: 'error', reason: built.reason };
      return this.teardown().then(() => {
        this.publishStatus();
        throw new Error(built.reason);
      });
    }
    const key = JSON.stringify(built.options);
    if (this.link && key === this.linkKey) {
      this.discovery.configure(settings);
      const state = this.link.status().state;
      if (force && state !== 'connected' && state !== 'connecting') this.link.connectNow();
      return undefined;
    }
    this.linkKey = key;
    if (!this.link) this.createLink(this.modules, built.options);
    else this.discovery.configure(settings);
    this.reports.restartSchedule();
    this.link!.connectNow(built.options);
    return undefined;
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

  private async teardown(): Promise<void> {
    const link = this.link;
    this.link = undefined;
    this.linkKey = undefined;
    if (!link) return;
    this.quarters?.detach();
    const farewell = this.discovery.detach();
    link.removeAllListeners();
    await link.close(farewell);
  }

  publishStatus(): void {
    const mqtt = this.view?.slice.mqtt ?? this.ctx.config.config.mqtt;
    const status = mqttStatusOf(this.inactive, this.link?.status(), mqtt, this.reports.errors);
    this.ctx.services.set(MQTT_SERVICE, status);
  }
}
