import type { AppConfig } from '../config/types.js';
import { templateInputOf, type AppContext } from '../context.js';
import type { MeterHandle } from '../reading/meter-registry.js';
import type { Reading } from '../reading/reading.js';
import { buildTemplateVariables } from '../reading/template-variables.js';
import type { BrokerLink } from './broker-link.js';
import { ReportSchedule } from './report-schedule.js';
import { compileTemplate, type CompiledTemplate } from '../reading/template.js';
import { topicNameProblem } from './topic-name.js';

/** The settings the MQTT output runs on (its slice of the configuration). */
export interface MqttView {
  mqtt: AppConfig['mqtt'];
  systemName: string;
  reportInterval: number;
  convFactor: number;
  /** The enabled actions' ids: one Home Assistant button each (docs/architecture.md#actions). */
  actionIds: string[];
  /** The further meters (not the primary), each with its own Home Assistant device (./ha-meters.ts). */
  meters: readonly MeterHandle[];
  /** What the peak guard's retained settings message carries (./peak-publisher.ts). */
  peakGuard: PeakSettingsView;
  /** What the export limiter's retained settings message carries (./limiter-mqtt.ts). */
  exportLimiter: LimiterSettingsView;
  /** Whether services.costs names a price source: the price sensors exist (./ha-prices.ts). */
  priceSource: boolean;
}

export type PeakSettingsView = Pick<AppConfig['services']['peak_guard'], 'enabled' | 'limit_kw' | 'mode'>;
export type LimiterSettingsView = Pick<
  AppConfig['services']['export_limiter'],
  'enabled' | 'mode' | 'target_w'
>;

/**
 * The real device's template message: mqtt.publish.template rendered with the reading's variables
 * to mqtt.publish.topic, at most once per services.report_interval and never faster than the
 * readings come. Both templates are compiled once per text; a topic that renders to an invalid
 * topic name (MQTT 5.0 §4.7) is counted as a template error and not published.
 */
export class TemplatePublisher {
  private readonly schedule = new ReportSchedule();
  private template: CompiledTemplate | undefined;
  private topic: CompiledTemplate | undefined;
  private failures = 0;

  constructor(private readonly ctx: AppContext) {}

  /** Renders that went wrong (invalid topic names). */
  get errors(): number {
    return this.failures;
  }

  /** A new link or a new interval: the next reading is published at once. */
  restartSchedule(): void {
    this.schedule.reset();
  }

  /** Publishes the report for `reading` when it is due; says whether one went out. */
  publish(reading: Reading, link: BrokerLink, settings: MqttView): boolean {
    if (!this.schedule.take(reading.receivedAt, settings.reportInterval * 1000, this.intervalMs()))
      return false;
    const { publish } = settings.mqtt;
    if (this.template?.source !== publish.template) this.template = compileTemplate(publish.template);
    if (this.topic?.source !== publish.topic) this.topic = compileTemplate(publish.topic);
    const variables = buildTemplateVariables({
      ...templateInputOf(this.ctx),
      reading,
      systemName: settings.systemName,
      convFactor: settings.convFactor,
    });
    const name = this.topic.render(variables);
    if (topicNameProblem(name) !== undefined) {
      this.failures += 1;
      this.ctx.logger.warn(`publish.topic renders to an invalid topic name: ${JSON.stringify(name)}`);
      return false;
    }
    const message = {
      topic: name,
      payload: this.template.render(variables),
      qos: publish.qos as 0 | 1 | 2,
      retain: publish.retain,
    };
    link.publish(message, 'queue');
    return true;
  }

  private intervalMs(): number | undefined {
    const seconds = this.ctx.store.interval;
    return seconds === undefined ? undefined : seconds * 1000;
  }
}
