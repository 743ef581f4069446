import type { FamilySpec } from '../metrics/families.js';
import type { MetricsContributor } from '../metrics/gateway-samples.js';
import { LIMITER_DECISIONS, LIMITER_STATES } from '../contracts/export-limiter.js';
import type { LimiterStatus } from './limiter.js';

/** The export limiter's /metrics series (docs/architecture.md#export-limiter), base units. */

const family = (
  name: string,
  help: string,
  type: 'gauge' | 'counter',
  labels: string[] = [],
): FamilySpec => ({
  name,
  help,
  type,
  labels,
});

export const LIMITER_FAMILIES = {
  state: family(
    'meter_gateway_export_limiter_state',
    'The export limiter state: 1 for the current one, 0 for the others',
    'gauge',
    ['state'],
  ),
  decision: family(
    'meter_gateway_export_limiter_decision',
    'What the loop does this quarter: 1 for the current decision, 0 for the others',
    'gauge',
    ['decision'],
  ),
  target: family('meter_gateway_export_limiter_target_watts', 'Grid power the limiter holds', 'gauge'),
  grid: family(
    'meter_gateway_export_limiter_grid_watts',
    'Grid power of the last reading, import positive',
    'gauge',
  ),
  reported: family('meter_gateway_export_limiter_inverter_watts', "Inverter's reported output", 'gauge', [
    'inverter',
  ]),
  commanded: family(
    'meter_gateway_export_limiter_limit_ratio',
    'Limit the gateway holds, as a fraction of WMax (absent while it holds none)',
    'gauge',
    ['inverter'],
  ),
  writes: family('meter_gateway_export_limiter_writes_total', 'Limit writes to the inverter', 'counter', [
    'inverter',
  ]),
  failures: family(
    'meter_gateway_export_limiter_failures_total',
    'Failed Modbus transactions with the inverter',
    'counter',
    ['inverter'],
  ),
};

export function limiterMetrics(source: () => LimiterStatus | undefined): MetricsContributor {
  return {
    families: Object.values(LIMITER_FAMILIES),
    collect(add) {
      const status = source();
      if (!status?.enabled) return;
      // Every value present (0 or 1), so an alert on a state sees its series before it first occurs.
      for (const state of LIMITER_STATES)
        add(LIMITER_FAMILIES.state, { state }, state === status.state ? 1 : 0);
      for (const decision of LIMITER_DECISIONS)
        add(LIMITER_FAMILIES.decision, { decision }, decision === status.decision ? 1 : 0);
      add(LIMITER_FAMILIES.target, {}, status.target_w);
      if (status.grid_w !== null) add(LIMITER_FAMILIES.grid, {}, status.grid_w);
      for (const inverter of status.inverters) {
        const labels = { inverter: inverter.id };
        if (inverter.reported_w !== null) add(LIMITER_FAMILIES.reported, labels, inverter.reported_w);
        if (inverter.commanded_pct !== null)
          add(LIMITER_FAMILIES.commanded, labels, inverter.commanded_pct / 100);
        add(LIMITER_FAMILIES.writes, labels, inverter.writes);
        add(LIMITER_FAMILIES.failures, labels, inverter.failures);
      }
    },
  };
}
