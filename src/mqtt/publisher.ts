import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import type { AppConfig } from '../config/types.js';
import type { AppContext, ServiceStatus } from '../context.js';
import type { MeterState } from '../reading/meter-state.js';
import type { Reading } from '../reading/reading.js';
import { buildTemplateVariables } from '../reading/template-variables.js';
import type { Service } from '../service.js';
import type { BrokerLink } from './broker-link.js';
import { linkOptionsOf, type LinkOptions } from './connection-options.js';
import type { DiscoverySettings, HomeAssistantDiscovery } from './discovery.js';
import type { DeviceInfo } from './ha-entities.js';
import { ReportSchedule } from './report-schedule.js';
import { compileTemplate, type CompiledTemplate } from './template.js';
import { topicNameProblem } from './topic-name.js';

export const MQTT_SERVICE = 'mqtt';

export type MqttService = Service & { reconnectNow(): void };

/** Why the publisher is not connecting, when it is not. */
type Inactive = { state: 'stopped' | 'disabled' | 'error'; reason: string };

/**
 * The connection and discovery code (with TLS and the MQTT client behind it) loads when MQTT is
 * first switched on: most daemons never publish, and it would cost memory all the time.
 */
async function loadLinkModules() {
  const [link, discovery] = await Promise.all([import('./broker-link.js'), import('./discovery.js')]);
  return {
    BrokerLink: link.BrokerLink,
    HomeAssistantDiscovery: discovery.HomeAssistantDiscovery,
    availabilityWill: discovery.availabilityWill,
  };
}
type LinkModules = Awaited<ReturnType<typeof loadLinkModules>>;

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
 * The MQTT output: the real device's template message every services.report_interval, and Home
 * Assistant discovery with a state message per reading. Stopped under license FREE
 * (docs/architecture.md#license); every settings change applies live. Connection state and last error are in
 * ctx.services under 'mqtt' (shown by /api/v1/system).
 */
export function createMqttService(ctx: AppContext): MqttService {
  let running = false;
  let link: BrokerLink | undefined;
  let discovery: HomeAssistantDiscovery | undefined;
  let linkKey: string | undefined;
  let inactive: Inactive | undefined = { state: 'stopped', reason: 'not started' };
  let template: CompiledTemplate | undefined;
  let topic: CompiledTemplate | undefined;
  const schedule = new ReportSchedule();
  let templateErrors = 0;
  let loggedError: string | undefined;
  let modules: LinkModules | undefined;
  let loading: Promise<void> | undefined;

  const settings = () => ctx.config.config;

  function publishStatus(): void {
    const status: ServiceStatus = inactive
      ? {
          state: inactive.state,
          ...(inactive.state === 'error' ? { error: inactive.reason } : { reason: inactive.reason }),
        }
      : link
        ? linkStatus()
        : { state: 'connecting', broker: settings().mqtt.url };
    ctx.services.set(MQTT_SERVICE, status);
  }

  function linkStatus(): ServiceStatus {
    const current = link!.status();
    const { state: linkState, retryInMs, ...counters } = current;
    const state = linkState === 'connected' || linkState === 'connecting' ? linkState : 'disconnected';
    const status: ServiceStatus = {
      state,
      broker: settings().mqtt.url,
      ...counters,
      template_errors: templateErrors,
    };
    if (retryInMs !== undefined) status.retry_in_ms = retryInMs;
    status.discovery = settings().mqtt.discovery.enable;
    return status;
  }

  function discoverySettings(): DiscoverySettings {
    const config = settings();
    const device: DeviceInfo = {
      systemId: ctx.system.id,
      name: config.system.name,
      model: ctx.system.model,
      firmware: ctx.system.firmware,
    };
    const url = config.mqtt.discovery.configuration_url || configurationUrlOf(config.http);
    if (url !== undefined) device.configurationUrl = url;
    return {
      enabled: config.mqtt.discovery.enable,
      prefix: config.mqtt.discovery.prefix,
      stateIntervalMs: config.mqtt.discovery.state_interval * 1000,
      device,
    };
  }

  function ensureLinkModules(): Promise<void> {
    loading ??= loadLinkModules().then(
      (loaded) => {
        modules = loaded;
      },
      (error: Error) => {
        loading = undefined;
        inactive = { state: 'error', reason: `cannot load the MQTT client: ${error.message}` };
        publishStatus();
        throw error;
      },
    );
    return loading;
  }

  /** Why no connection is wanted, or undefined when one is. */
  function inactiveNow(): Inactive | undefined {
    const config = settings();
    if (!running) return { state: 'stopped', reason: 'service stopped' };
    if (config.license.type === 'FREE')
      return { state: 'stopped', reason: 'license FREE: MQTT publishing needs PLUS or PRO' };
    if (!config.mqtt.enable) return { state: 'disabled', reason: 'mqtt.enable is false' };
    return undefined;
  }

  function desiredOptions(
    loaded: LinkModules,
  ): { ok: true; options: LinkOptions } | { ok: false; inactive: Inactive } {
    const stopped = inactiveNow();
    if (stopped) return { ok: false, inactive: stopped };
    const config = settings();
    const will = config.mqtt.discovery.enable ? loaded.availabilityWill(ctx.system.id) : undefined;
    const built = linkOptionsOf(config.mqtt, ctx.system.id, will);
    return built.ok ? built : { ok: false, inactive: { state: 'error', reason: built.reason } };
  }

  async function teardown(): Promise<void> {
    const current = link;
    const currentDiscovery = discovery;
    link = undefined;
    discovery = undefined;
    linkKey = undefined;
    if (!current) return;
    currentDiscovery?.stop();
    current.removeAllListeners();
    await current.close(currentDiscovery?.farewell());
  }

  function createLink(loaded: LinkModules, options: LinkOptions): void {
    const created = new loaded.BrokerLink(options);
    const createdDiscovery = new loaded.HomeAssistantDiscovery(
      created,
      discoverySettings(),
      () => ctx.store.latest,
      () => ctx.store.meter.status,
    );
    created.on('connect', () => {
      loggedError = undefined;
      createdDiscovery.onConnect();
      ctx.logger.info(`connected to ${settings().mqtt.url}`);
      publishStatus();
    });
    created.on('disconnect', () => {
      ctx.logger.warn(`connection to ${settings().mqtt.url} lost`);
      publishStatus();
    });
    created.on('status', () => {
      const { error, retryInMs } = created.status();
      // Each distinct error once: a broker that stays down must not fill the journal.
      if (error !== undefined && error !== loggedError && retryInMs !== undefined) {
        loggedError = error;
        ctx.logger.warn(`${settings().mqtt.url}: ${error} (retrying with backoff, next in ${retryInMs} ms)`);
      }
      publishStatus();
    });
    created.on('message', (name, payload, retained) => createdDiscovery.onMessage(name, payload, retained));
    link = created;
    discovery = createdDiscovery;
  }

  /** Brings the connection in line with the settings; `force` retries at once when not connected. */
  function reconcile(force: boolean): void {
    if (!modules && inactiveNow() === undefined) {
      // Switched on for the first time: connecting as soon as the code is loaded (milliseconds).
      inactive = undefined;
      ensureLinkModules().then(
        () => reconcile(force),
        () => undefined,
      );
      publishStatus();
      return;
    }
    const desired = modules ? desiredOptions(modules) : { ok: false as const, inactive: inactiveNow()! };
    if (!desired.ok) {
      inactive = desired.inactive;
      void teardown().then(publishStatus);
      publishStatus();
      return;
    }
    inactive = undefined;
    const key = JSON.stringify(desired.options);
    if (link && key === linkKey) {
      discovery?.configure(discoverySettings());
      const state = link.status().state;
      if (force && state !== 'connected' && state !== 'connecting') link.connectNow();
      publishStatus();
      return;
    }
    linkKey = key;
    if (!link) createLink(modules!, desired.options);
    else discovery?.configure(discoverySettings());
    schedule.reset();
    link!.connectNow(desired.options);
    publishStatus();
  }

  function publishTemplate(reading: Reading): void {
    const config = settings();
    if (!schedule.take(reading.receivedAt, config.services.report_interval * 1000, intervalMs())) return;
    if (template?.source !== config.mqtt.publish.template)
      template = compileTemplate(config.mqtt.publish.template);
    if (topic?.source !== config.mqtt.publish.topic) topic = compileTemplate(config.mqtt.publish.topic);
    const variables = buildTemplateVariables({
      reading,
      meter: ctx.store.meter,
      system: ctx.system,
      systemName: config.system.name,
      convFactor: config.meter.conv_factor,
      wifi: (ctx.services.get('wifi')?.info as Record<string, string | number> | undefined) ?? {},
      now: ctx.now(),
    });
    const name = topic.render(variables);
    if (topicNameProblem(name) !== undefined) {
      templateErrors += 1;
      ctx.logger.warn(`publish.topic renders to an invalid topic name: ${JSON.stringify(name)}`);
      return;
    }
    const { qos, retain } = config.mqtt.publish;
    link!.publish(
      { topic: name, payload: template.render(variables), qos: qos as 0 | 1 | 2, retain },
      'queue',
    );
    // Counters in the status follow each report (not each state message: that is the hot path).
    publishStatus();
  }

  function intervalMs(): number | undefined {
    const seconds = ctx.store.interval;
    return seconds === undefined ? undefined : seconds * 1000;
  }

  const onReading = (reading: Reading): void => {
    if (!link) return;
    publishTemplate(reading);
    discovery?.onReading(reading, ctx.store.meter.identity.id);
  };
  let lastStatus: string | undefined;
  const onMeter = (meter: MeterState): void => {
    if (ctx.store.latest === undefined) discovery?.onMeterStale();
    if (meter.status !== lastStatus) discovery?.publishMeterStatus();
    lastStatus = meter.status;
  };
  const onConfigChange = (paths: readonly string[]): void => {
    if (paths.includes('services.report_interval')) schedule.reset();
    if (
      paths.some((path) => path.startsWith('mqtt.') || path.startsWith('license.') || path === 'system.name')
    ) {
      reconcile(false);
    }
  };

  return {
    name: MQTT_SERVICE,
    required: false,
    async start() {
      if (running) return;
      running = true;
      ctx.store.subscribe('mqtt', 'reading', onReading);
      ctx.store.subscribe('mqtt', 'meter', onMeter);
      ctx.config.subscribe('mqtt', 'change', onConfigChange);
      // On at start-up: the link exists when start() returns, so no early reading is skipped.
      if (inactiveNow() === undefined) await ensureLinkModules().catch(() => undefined);
      reconcile(false);
    },
    async stop() {
      if (!running) return;
      running = false;
      ctx.store.off('reading', onReading);
      ctx.store.off('meter', onMeter);
      ctx.config.off('change', onConfigChange);
      inactive = { state: 'stopped', reason: 'service stopped' };
      await teardown();
      publishStatus();
    },
    reconnectNow() {
      if (running) reconcile(true);
    },
  };
}
