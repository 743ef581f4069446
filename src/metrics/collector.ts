import { systemClock } from '../clock.js';
import { meterFamilies, type FamilySpec } from './families.js';
import {
  gatewaySamples,
  GATEWAY_FAMILIES,
  type GatewaySources,
  type MetricsContributor,
} from './gateway-samples.js';
import { addSample, meterSamples, type MeteredSource, type Samples } from './meter-samples.js';

export interface CollectorSources {
  /** The meters to expose, read at every scrape (the primary meter `main`, and any further ones). */
  meters: () => Iterable<MeteredSource>;
  gateway: GatewaySources;
  /** Further series (the peak guard's demand values once it exists). */
  contributors?: readonly MetricsContributor[];
  now?: () => number;
}

/**
 * What `/metrics` shows, computed at scrape time from the reading stores and the outputs' counters
 * (docs/architecture.md#prometheus-metrics). Knows nothing of the exposition library: `families` says what
 * to register, `collect()` gives the samples of one scrape.
 */
export class MetricsCollector {
  readonly families: readonly FamilySpec[];
  private readonly now: () => number;

  constructor(private readonly sources: CollectorSources) {
    this.now = sources.now ?? systemClock.now;
    const families = [...meterFamilies(), ...Object.values(GATEWAY_FAMILIES)];
    for (const contributor of sources.contributors ?? []) families.push(...contributor.families);
    const names = new Set<string>();
    for (const family of families) {
      if (names.has(family.name)) throw new Error(`metric family ${family.name} defined twice`);
      names.add(family.name);
    }
    this.families = families;
  }

  collect(): Samples {
    const samples: Samples = new Map();
    const now = this.now();
    for (const meter of this.sources.meters()) meterSamples(samples, meter, now);
    gatewaySamples(samples, this.sources.gateway);
    for (const contributor of this.sources.contributors ?? [])
      contributor.collect((family, labels, value) => addSample(samples, family, labels, value));
    return samples;
  }
}
