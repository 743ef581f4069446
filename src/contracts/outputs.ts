import Type, { type Static } from 'typebox';

/**
 * The outputs of the daemon by name, the one list the status lines of /api/v1/system `services`,
 * the health check and the page's status boards read (docs/architecture.md#output-contract). Each
 * output declares its name from this list, so a status board or a health rule cannot name an
 * output that does not exist.
 */
export const OUTPUT_NAMES = [
  'meter',
  'meters',
  'live',
  'log',
  'sd',
  'housekeeping',
  'modbus',
  'modbus_rtu',
  'meter_proxy',
  'shelly_udp',
  'homewizard',
  'mqtt',
  'cloud',
  'scripting',
  'actions',
  'peak_guard',
  'export_limiter',
  'push',
  'prices',
  'network',
  'mdns',
] as const;
export type OutputName = (typeof OUTPUT_NAMES)[number];

/** The six states of every output's status line. */
export const OUTPUT_STATES = ['starting', 'running', 'retrying', 'error', 'disabled', 'blocked'] as const;
export type OutputState = (typeof OUTPUT_STATES)[number];

/**
 * The outputs that serve clients on a port of their own: one that does not run as configured
 * (`retrying`, `error`) makes the process unhealthy (docs/architecture.md#health).
 */
export const LISTENING_OUTPUTS = [
  'modbus',
  'modbus_rtu',
  'meter_proxy',
] as const satisfies readonly OutputName[];

/** An output's status line: its state, why it fails, when it is tried again, and its facts. */
export const OutputStatusSchema = Type.Intersect([
  Type.Object({
    state: Type.Enum(OUTPUT_STATES),
    error: Type.Optional(Type.String({ description: 'why it is retrying or in error' })),
    retry_in_ms: Type.Optional(Type.Integer({ description: 'when the runner tries again' })),
  }),
  Type.Record(Type.String(), Type.Unknown(), { description: "the output's facts" }),
]);
export type OutputStatusView = Static<typeof OutputStatusSchema>;
