import Type, { type Static } from 'typebox';

/**
 * GET /api/v1/push (docs/architecture.md#push): every enabled push target's state, its cursor (the
 * last quarter hour the receiver acknowledged), the quarters still to send and its counters.
 */
export const PUSH_STATES = [
  'starting',
  'idle',
  'sending',
  'backoff',
  'clock_unsynced',
  'error',
  'stopped',
] as const;

export const PushTargetViewSchema = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: 'remote_write, influx_line or vm_import' }),
  state: Type.Enum(PUSH_STATES, {
    description:
      "clock_unsynced: the clock is more than 5 minutes off the receiver's Date header; nothing is sent",
  }),
  cursor: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'start of the last acknowledged quarter hour (ISO 8601 UTC)',
  }),
  backlog_quarters: Type.Integer({
    description: 'complete quarter hours after the cursor (0 for a target whose `what` has no quarters)',
  }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  last_success: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  clock_skew_ms: Type.Union([Type.Integer(), Type.Null()], {
    description: "this clock minus the receiver's Date header at the last answer",
  }),
  counts: Type.Object({
    sent: Type.Integer({ description: 'samples acknowledged' }),
    batches: Type.Integer(),
    retried: Type.Integer({ description: 'attempts retried after 429, 5xx, a redirect or no answer' }),
    dropped_too_old: Type.Integer({ description: "samples older than the receiver's retention, never sent" }),
    dropped_rejected: Type.Integer({ description: 'samples of batches refused with a 4xx' }),
  }),
});
export type PushTargetView = Static<typeof PushTargetViewSchema>;

export const PushViewSchema = Type.Object({ targets: Type.Array(PushTargetViewSchema) });
export type PushView = Static<typeof PushViewSchema>;
