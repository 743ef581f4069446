import { EXPORT_LIMITER_MODES } from '../config/export-limiter-schema.js';
import type { AppContext } from '../context.js';
import type { FamilySpec } from '../metrics/families.js';
import type { MetricsContributor } from '../metrics/gateway-samples.js';

/**
 * The export limiter's MQTT commands (docs/architecture.md#export-limiter): `mode` (off,
 * zero_export, price) and `target` (W, an integer) write `services.export_limiter.mode` and
 * `.target_w` through the config store, exactly as PUT /api/v1/settings does: the same schema and
 * rules, written atomically to the settings state file (so a change made in Home Assistant
 * survives a restart) and taken up by the running loop. A refused command is logged and counted;
 * nothing of it is stored. Size and rate are bounded by the link's command gate.
 */

export const LIMITER_COMMANDS = ['mode', 'target'] as const;
export type LimiterCommand = (typeof LIMITER_COMMANDS)[number];

/** How many commands were taken and refused since start (the /metrics series). */
export class LimiterCommandCounts {
  accepted = 0;
  refused = 0;
}

const PATHS: Readonly<Record<LimiterCommand, string>> = {
  mode: 'services.export_limiter.mode',
  target: 'services.export_limiter.target_w',
};

/** An integer as JSON writes it; HA's number entity sends `-100` or `-100.0`. */
const INTEGER = /^-?\d{1,7}(\.0+)?$/;

export function limiterCommandValue(
  command: LimiterCommand,
  payload: string,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  const text = payload.trim();
  if (command === 'target')
    return INTEGER.test(text)
      ? { ok: true, value: Number(text) }
      : { ok: false, reason: 'must be a whole number of W' };
  return (EXPORT_LIMITER_MODES as readonly string[]).includes(text)
    ? { ok: true, value: text }
    : { ok: false, reason: `must be one of ${EXPORT_LIMITER_MODES.join(', ')}` };
}

/** Payloads in the log: at most 64 printable characters (hostile input is not echoed whole). */
function shown(payload: string): string {
  const cut = payload.length > 64 ? `${payload.slice(0, 64)}…` : payload;
  return JSON.stringify(cut.replace(/[^\x20-\x7e]/g, '?'));
}

/** Runs one command: validated and written like PUT /api/v1/settings, or refused (logged, counted). */
export function runLimiterCommand(
  ctx: AppContext,
  counts: LimiterCommandCounts,
  command: LimiterCommand,
  payload: string,
): boolean {
  const path = PATHS[command];
  const refuse = (reason: string): false => {
    counts.refused += 1;
    ctx.logger.warn(`mqtt: export limiter ${command} command ${shown(payload)} refused: ${path} ${reason}`);
    return false;
  };
  const parsed = limiterCommandValue(command, payload);
  if (!parsed.ok) return refuse(parsed.reason);
  const result = ctx.config.apply(new Map([[path, parsed.value]]));
  if (!result.ok) return refuse(result.issues.map((issue) => issue.message).join('; '));
  counts.accepted += 1;
  ctx.logger.info(`mqtt: export limiter ${command} command: ${path} = ${JSON.stringify(parsed.value)}`);
  void result.settled.then((failures) => {
    for (const failure of failures)
      ctx.logger.error(
        `mqtt: export limiter ${command} command stored, but ${failure.owner} failed: ${failure.message}`,
      );
  });
  return true;
}

const COMMANDS_FAMILY: FamilySpec = {
  name: 'meter_gateway_export_limiter_mqtt_commands_total',
  help: 'Export limiter commands received over MQTT, by result (accepted, refused)',
  type: 'counter',
  labels: ['result'],
};

/** The commands' counters on /metrics. */
export function limiterCommandMetrics(counts: LimiterCommandCounts): MetricsContributor {
  return {
    families: [COMMANDS_FAMILY],
    collect(add) {
      add(COMMANDS_FAMILY, { result: 'accepted' }, counts.accepted);
      add(COMMANDS_FAMILY, { result: 'refused' }, counts.refused);
    },
  };
}
