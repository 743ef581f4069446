import { type Timer } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import { ReportCache } from '../reading/report-cache.js';
import type { DeclaredOutput, OutputStatus, OutputView, StatusPort } from '../output.js';
import { PushTarget } from './cloud-target.js';

const REQUEST_TIMEOUT_MS = 10_000;

type TargetName = keyof AppConfig['cloud'];

/** The settings cloud push runs on: the target URLs, their switches and the report interval. */
interface CloudSettings {
  cloud: AppConfig['cloud'];
  services: Pick<AppConfig['services'], 'cloud' | 'local' | 'report_interval'>;
}

/** Which setting switches which target (docs/architecture.md#services: services.cloud.*, services.local.solar_manager). */
const TARGETS: ReadonlyArray<{ name: TargetName; enabled: (config: CloudSettings) => boolean }> = [
  { name: 'vendor', enabled: (c) => c.services.cloud.vendor },
  { name: 'solar_manager', enabled: (c) => c.services.cloud.solar_manager },
  { name: 'partner_a', enabled: (c) => c.services.cloud.partner_a },
  { name: 'partner_b', enabled: (c) => c.services.cloud.partner_b },
  { name: 'local_solar_manager', enabled: (c) => c.services.local.solar_manager },
];

/** The status facts of cloud push (services.cloud in /api/v1/system). */
export type CloudPushFacts = {
  /** Each running target's counters (cloud-target.ts), by target name; a live fact. */
  targets?: Record<string, Record<string, unknown>>;
  /** Targets without cloud.<name>.url (the settings page marks their switches). */
  url_missing: TargetName[];
  /** Of those, the ones switched on (their status line says that a URL is needed). */
  without_url: TargetName[];
};
export type CloudPushStatus = OutputStatus<CloudPushFacts>;

/** Whether a target runs: switched on and given a URL. */
function runs(config: CloudSettings, target: (typeof TARGETS)[number]): boolean {
  return target.enabled(config) && Boolean(config.cloud[target.name].url);
}

/**
 * Cloud push (services.cloud.*, services.local.solar_manager): the report JSON POSTed to
 * cloud.<name>.url every services.report_interval seconds while the reading is fresh; a target is
 * off while its URL is unset. Each target retries on its own; one failing never holds up another.
 */
export class CloudPush implements DeclaredOutput<CloudSettings, CloudPushFacts> {
  /** The key of its status line, services.cloud. */
  readonly name = 'cloud';
  private readonly targets = new Map<TargetName, PushTarget>();
  private timer: Timer | undefined;
  private readonly report: ReportCache;
  private status: StatusPort<CloudPushFacts> | undefined;
  readonly watches = ['cloud', 'services.cloud', 'services.local', 'services.report_interval'] as const;

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
    private readonly requestTimeoutMs = REQUEST_TIMEOUT_MS,
    /** Where HTTP_PROXY, HTTPS_PROXY and NO_PROXY are read. */
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.report = new ReportCache(context);
  }

  select({ cloud, services }: AppConfig): CloudSettings {
    const { cloud: switches, local, report_interval } = services;
    return { cloud, services: { cloud: switches, local, report_interval } };
  }

  /** Off (`disabled`) while no target is both switched on and given a URL. */
  enabled(config: CloudSettings): boolean {
    return TARGETS.some((target) => runs(config, target));
  }

  async start(status: StatusPort<CloudPushFacts>): Promise<void> {
    this.status = status;
  }

  async stop(): Promise<void> {
    if (this.timer) this.context.clock.clearInterval(this.timer);
    this.timer = undefined;
    for (const target of this.targets.values()) target.close();
    this.targets.clear();
    this.status = undefined;
  }

  apply({ slice: config }: OutputView<CloudSettings>): CloudPushFacts {
    for (const { name, enabled } of TARGETS) {
      const url = config.cloud[name].url;
      const existing = this.targets.get(name);
      if (existing && (!enabled(config) || existing.url !== url)) {
        existing.close();
        this.targets.delete(name);
      }
      if (enabled(config) && url && !this.targets.has(name)) {
        this.targets.set(
          name,
          new PushTarget({
            name,
            url,
            userAgent: `meter-gateway/${this.context.system.firmware}`,
            timeoutMs: this.requestTimeoutMs,
            logger: this.logger,
            onUpdate: () => this.status?.facts({ targets: this.targetStatus() }),
            env: this.env,
            clock: this.context.clock,
          }),
        );
      }
    }
    if (this.timer) this.context.clock.clearInterval(this.timer);
    this.timer =
      this.targets.size > 0
        ? this.context.clock.setInterval(() => this.tick(), config.services.report_interval * 1000)
        : undefined;
    // The targets' counters are live facts (each target reports its own changes).
    this.status?.facts({ targets: this.targetStatus() });
    const urlMissing = TARGETS.filter(({ name }) => !config.cloud[name].url);
    return {
      url_missing: urlMissing.map(({ name }) => name),
      without_url: urlMissing.filter(({ enabled }) => enabled(config)).map(({ name }) => name),
    };
  }

  /** Queues the current report on every target; public so tests can drive it without waiting. */
  tick(): void {
    if (!this.context.store.latest) return;
    const { body } = this.report.get();
    for (const target of this.targets.values()) target.enqueue(body);
  }

  private targetStatus(): Record<string, Record<string, unknown>> {
    return Object.fromEntries([...this.targets].map(([name, target]) => [name, target.status()]));
  }
}
