import type { ExportLimiter, LimiterMode, LimiterState, LimiterStatus } from '../export-limiter/limiter.js';
import type { Decision } from '../export-limiter/limiter.js';

/**
 * The export limiter's values as register ids of a custom whatwatt layout
 * (docs/architecture.md#export-limiter): `limiter.target_kw`, `limiter.grid_kw` (import positive),
 * `limiter.limit_kw` (the limits the gateway holds, summed over the inverters) and
 * `limiter.output_kw` (the inverters' reported output) in kW, as every power of the layout (a
 * scaler of 3 gives W); `limiter.mode`, `limiter.decision` and `limiter.state` as codes. By the
 * staleness rule (docs/architecture.md#staleness) the powers are instantaneous: NaN (float, double)
 * or 0 (integers) while the limiter is disabled, its meter is stale, or no value is known (no
 * inverter holds a limit); the codes read 0 while it is disabled.
 */

/** `limiter.mode`: services.export_limiter.mode as a number (0 also while the limiter is disabled). */
export const LIMITER_MODE_CODES: Readonly<Record<LimiterMode, number>> = {
  off: 0,
  zero_export: 1,
  price: 2,
};

/** `limiter.decision`: what the loop does this quarter. */
export const LIMITER_DECISION_CODES: Readonly<Record<Decision, number>> = {
  off: 0,
  zero_export: 1,
  pv_off: 2,
  free: 3,
};

/** `limiter.state`: 0 while the limiter is disabled. */
export const LIMITER_STATE_CODES: Readonly<Record<LimiterState | 'disabled', number>> = {
  disabled: 0,
  idle: 1,
  limiting: 2,
  free: 3,
  pv_off: 4,
  stale: 5,
  inverter_lost: 6,
  busy: 7,
};

export const LIMITER_REGISTER_PREFIX = 'limiter.';

/** A sum of kW over the inverters that know the value; undefined when none does. */
function sumKw(
  status: LimiterStatus,
  watts: (inverter: LimiterStatus['inverters'][number]) => number | null,
) {
  const known = status.inverters.map(watts).filter((value): value is number => value !== null);
  return known.length === 0 ? undefined : known.reduce((sum, value) => sum + value, 0) / 1000;
}

const POWERS: Readonly<Record<string, (status: LimiterStatus) => number | undefined>> = {
  'limiter.target_kw': (status) => status.target_w / 1000,
  'limiter.grid_kw': (status) => (status.grid_w === null ? undefined : status.grid_w / 1000),
  'limiter.limit_kw': (status) => sumKw(status, (inverter) => inverter.commanded_w),
  'limiter.output_kw': (status) => sumKw(status, (inverter) => inverter.reported_w),
};

/** What a `limiter.*` id reads from the image's value source: its `limiter` status alone. */
type LimiterResolver = (source: { limiter?: () => LimiterStatus | undefined }) => number | undefined;

/** The register ids and what each reads (from `source.limiter`, the status of the rebuild). */
export function limiterRegisterIds(): [string, LimiterResolver][] {
  const running = (source: { limiter?: () => LimiterStatus | undefined }) => {
    const status = source.limiter?.();
    return status?.enabled ? status : undefined;
  };
  const ids: [string, LimiterResolver][] = Object.entries(POWERS).map(([id, value]) => [
    id,
    (source) => {
      const status = running(source);
      return status && status.state !== 'stale' ? value(status) : undefined;
    },
  ]);
  ids.push(['limiter.mode', (source) => LIMITER_MODE_CODES[running(source)?.mode ?? 'off']]);
  ids.push(['limiter.decision', (source) => LIMITER_DECISION_CODES[running(source)?.decision ?? 'off']]);
  ids.push(['limiter.state', (source) => LIMITER_STATE_CODES[running(source)?.state ?? 'disabled']]);
  return ids;
}

/** The limiter's status, taken at most once per image rebuild (several cells read it). */
export function limiterStatusOnce(limiter: ExportLimiter | undefined): () => LimiterStatus | undefined {
  let taken: LimiterStatus | undefined;
  return () => (taken ??= limiter?.status());
}
