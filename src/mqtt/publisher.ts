import { QuarterMqtt } from './quarters-publisher.js';
import type { PushOnMqtt } from './ha-push.js';
import type { QuarterSource } from '../push/push-client.js';
import type { AppContext } from '../context.js';
import type { AppConfig } from '../config/types.js';
import type { ConfigPath, DeclaredOutput, MeterLookup } from '../output.js';
import type { MeterState } from '../reading/meter-state.js';
import type { Reading } from '../reading/reading.js';
import type { LinkStatus } from './broker-link.js';
import { HomeAssistantFeed, type PeakOnMqtt } from './ha-feed.js';
import { LinkSupervisor, MQTT_SERVICE } from './link-supervisor.js';
import type { MqttFacts } from './link-state.js';
import type { LimiterOnMqtt } from './limiter-mqtt.js';
import { TemplatePublisher, type MqttView } from './template-publisher.js';

export { configurationUrlOf } from './ha-feed.js';
export { MQTT_SERVICE } from './link-supervisor.js';
export type { MqttView } from './template-publisher.js';
export type { PeakOnMqtt } from './ha-feed.js';

export type { MqttFacts, MqttStatus } from './link-state.js';

export type MqttService = DeclaredOutput<MqttView, MqttFacts> & {
  reconnectNow(): void;
  /** The broker link's state and counters while a link exists (MQTT on), for the metrics. */
  linkStatus(): LinkStatus | undefined;
};

/** The settings the MQTT output follows: its own section and what its messages and entities show. */
const MQTT_WATCHES: readonly ConfigPath[] = [
  'mqtt',
  'system.name',
  'services.report_interval',
  'meter.conv_factor',
  'actions',
  'services.peak_guard',
  'services.export_limiter',
  'services.costs.source',
];

/** The MQTT output's slice: what its template messages, discovery and command topics are built from. */
function mqttSliceOf(config: AppConfig, meters: MeterLookup): MqttView {
  return {
    mqtt: config.mqtt,
    systemName: config.system.name,
    reportInterval: config.services.report_interval,
    convFactor: config.meter.conv_factor,
    actionIds: (config.actions.definition?.actions ?? [])
      .filter((action) => action.enable !== false)
      .map((action) => action.id),
    meters: meters.all().filter((meter) => meter.kind !== 'primary'),
    peakGuard: {
      enabled: config.services.peak_guard.enabled,
      limit_kw: config.services.peak_guard.limit_kw,
      mode: config.services.peak_guard.mode,
    },
    priceSource: config.services.costs.source.name !== 'none',
    exportLimiter: {
      enabled: config.services.export_limiter.enabled,
      mode: config.services.export_limiter.mode,
      target_w: config.services.export_limiter.target_w,
    },
  };
}

/**
 * The MQTT output: the real device's template message every services.report_interval
 * (TemplatePublisher) and Home Assistant discovery with a state message per reading
 * (HomeAssistantFeed), over one broker connection (LinkSupervisor). Off under license FREE
 * (docs/architecture.md#output-contract); every settings change applies live. The runner writes
 * its status line 'mqtt' (shown by /api/v1/system) from the facts it reports: a link that retries
 * its broker is `retrying` with the link's error.
 */
export function createMqttService(
  ctx: AppContext,
  pressAction?: (actionId: string) => void,
  peak?: PeakOnMqtt,
  /** Every meter's quarter hours for the fleet path on `services.push.mqtt` (docs/architecture.md#push). */
  quarters?: QuarterSource,
  /** The export limiter's state, events and commands (./limiter-mqtt.ts). */
  limiter?: LimiterOnMqtt,
  /** The push targets, as Home Assistant diagnostic sensors (docs/architecture.md#push). */
  push?: PushOnMqtt,
): MqttService {
  const reports = new TemplatePublisher(ctx);
  const discovery = new HomeAssistantFeed(ctx, pressAction, peak, limiter, push);
  const supervisor = new LinkSupervisor(ctx, discovery, reports, quarters && new QuarterMqtt(ctx, quarters));
  let running = false;

  const onReading = (reading: Reading): void => {
    const link = supervisor.link;
    if (!link || !supervisor.view) return;
    // Counters in the status follow each report (not each state message: that is the hot path).
    if (reports.publish(reading, link, supervisor.view.slice)) supervisor.publishStatus();
    discovery.onReading(reading);
  };
  const onMeter = (meter: MeterState): void => discovery.onMeter(meter);

  return {
    name: MQTT_SERVICE,
    watches: MQTT_WATCHES,
    license: 'PLUS',
    select: mqttSliceOf,
    enabled: (slice) => slice.mqtt.enable,
    async apply(next, previous) {
      supervisor.view = next;
      if (previous && previous.slice.reportInterval !== next.slice.reportInterval) reports.restartSchedule();
      // The link exists when the first apply resolves, so no early reading is skipped.
      return supervisor.apply();
    },
    async start(status) {
      if (running) return;
      running = true;
      supervisor.status = status;
      ctx.store.subscribe('mqtt', 'reading', onReading);
      ctx.store.subscribe('mqtt', 'meter', onMeter);
    },
    async stop() {
      if (!running) return;
      running = false;
      ctx.store.off('reading', onReading);
      ctx.store.off('meter', onMeter);
      supervisor.view = undefined;
      supervisor.status = undefined;
      await supervisor.teardown();
    },
    linkStatus() {
      return supervisor.link?.status();
    },
    reconnectNow() {
      if (running) supervisor.reconnectNow();
    },
  };
}
