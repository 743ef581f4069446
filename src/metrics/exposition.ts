import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Registry,
  type Metric,
  type RegistryContentType,
} from 'prom-client';
import type { MetricsCollector } from './collector.js';
import type { FamilySpec } from './families.js';
import type { Sample, Samples } from './meter-samples.js';

/**
 * The exposition through prom-client, loaded on the first scrape (docs/architecture.md#prometheus-metrics).
 * Every family is a prom-client Gauge or Counter whose `collect()` callback fills it from the samples of the
 * running scrape; a scrape registers only the families that have samples, so an absent quantity shows no
 * HELP line either. No sample carries a timestamp. The OpenMetrics format has metric instances of its own:
 * prom-client renames a counter (drops `_total` from the family name) when it renders OpenMetrics.
 */

export type ExpositionFormat = 'prometheus' | 'openmetrics';

export interface Exposition {
  contentType: string;
  body: string;
}

type FamilyMetric = Gauge | Counter;

class FormatSet {
  readonly metrics = new Map<string, FamilyMetric>();
  private process: Metric[] | undefined = undefined;

  constructor(
    readonly contentType: RegistryContentType,
    families: readonly FamilySpec[],
    current: () => Samples,
  ) {
    for (const family of families) this.metrics.set(family.name, metricOf(family, current));
  }

  /** Node.js process metrics (prom-client's default set), made on first use. */
  processMetrics(): Metric[] {
    if (!this.process) {
      const registry = registryOf(this.contentType);
      collectDefaultMetrics({ register: registry });
      // Each registered metric by its name: getSingleMetric gives the instance itself, typed as one.
      // The gauges prom-client names nodejs_active_*_total are left out: `_total` belongs to counters only.
      const metrics: Metric[] = [];
      for (const { name } of registry.getMetricsAsArray()) {
        const metric = registry.getSingleMetric(name);
        if (metric && !(metric instanceof Gauge && name.endsWith('_total'))) metrics.push(metric);
      }
      this.process = metrics;
    }
    return this.process;
  }
}

function metricOf(family: FamilySpec, current: () => Samples): FamilyMetric {
  const common = { name: family.name, help: family.help, labelNames: [...family.labels], registers: [] };
  if (family.type === 'counter') {
    return new Counter({
      ...common,
      collect(this: Counter) {
        this.reset();
        for (const sample of current().get(family.name) ?? []) this.inc(sample.labels, sample.value);
      },
    });
  }
  return new Gauge({
    ...common,
    collect(this: Gauge) {
      this.reset();
      for (const sample of current().get(family.name) ?? []) this.set(sample.labels, sample.value);
    },
  });
}

export class MetricsExposition {
  private readonly sets = new Map<ExpositionFormat, FormatSet>();
  private samples: Samples = new Map();

  constructor(private readonly collector: MetricsCollector) {}

  /** One scrape: the samples are taken once, then prom-client renders the families that have some. */
  async render(format: ExpositionFormat, withProcess: boolean): Promise<Exposition> {
    const set = this.setOf(format);
    const samples = this.collector.collect();
    const registry = registryOf(set.contentType);
    for (const family of this.collector.families) {
      if (hasSamples(samples.get(family.name))) registry.registerMetric(set.metrics.get(family.name)!);
    }
    if (withProcess) for (const metric of set.processMetrics()) registry.registerMetric(metric);
    // prom-client calls every collect() synchronously inside metrics(), before its first await, so
    // concurrent scrapes never see each other's samples.
    this.samples = samples;
    const body = await registry.metrics();
    return { contentType: set.contentType, body };
  }

  private setOf(format: ExpositionFormat): FormatSet {
    let set = this.sets.get(format);
    if (!set) {
      const type =
        format === 'openmetrics' ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE;
      set = new FormatSet(type, this.collector.families, () => this.samples);
      this.sets.set(format, set);
    }
    return set;
  }
}

function registryOf(contentType: RegistryContentType): Registry<RegistryContentType> {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(contentType);
  return registry;
}

function hasSamples(list: Sample[] | undefined): boolean {
  return list !== undefined && list.length > 0;
}
