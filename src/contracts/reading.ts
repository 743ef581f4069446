import Type, { type Static } from 'typebox';
import { optionalEach } from './fields.js';
import { METER_STATUSES, METER_INTERFACES, METER_PROTOCOLS } from './values.js';

/**
 * The JSON of the live stream, the report and the variables endpoint (docs/architecture.md#live-payload,
 * docs/architecture.md#report-shape). The schemas are the API's description (GET /api/v1/openapi.json)
 * and the types the server builds and the web page reads.
 */

/** One M-Bus channel of the live payload (gas, water, heat meters on the meter's M-Bus). */
export const LiveVolumeSchema = Type.Object({
  Bus: Type.Integer(),
  M_ID: Type.Optional(Type.String()),
  DT: Type.Optional(Type.String()),
  Cum: Type.Optional(Type.Number()),
});
export type LiveVolume = Static<typeof LiveVolumeSchema>;

/**
 * One `event: live`: quantities by live key (kW, kWh, V, A, Hz ...), `T` the tariff, `Vol` the M-Bus
 * channels, `Date`/`Time` local, `Uptime` in hours.
 */
export const LivePayloadSchema = Type.Intersect([
  Type.Object({
    P_In: Type.Optional(Type.Number()),
    P_Out: Type.Optional(Type.Number()),
    T: Type.Optional(Type.Integer()),
    Vol: Type.Optional(Type.Array(LiveVolumeSchema)),
    Date: Type.String(),
    Time: Type.String(),
    Uptime: Type.Number({ description: 'hours since start' }),
  }),
  Type.Record(Type.String(), Type.Union([Type.Number(), Type.String(), Type.Array(LiveVolumeSchema)])),
]);
export type LivePayload = Static<typeof LivePayloadSchema>;

const meterFields = {
  status: Type.Enum(METER_STATUSES),
  interface: Type.Enum(METER_INTERFACES),
  protocol: Type.Optional(Type.Enum(METER_PROTOCOLS)),
  ...optionalEach(['protocol_version', 'id', 'model', 'logical_name', 'vendor', 'prefix'], () =>
    Type.String(),
  ),
};

/** The meter object of the report. */
export const MeterViewSchema = Type.Object(meterFields);
export type MeterView = Static<typeof MeterViewSchema>;

/**
 * The meter object of /api/v1/system: the report's fields plus the device's `manufacturer`, `type`,
 * `report_interval` (measured seconds between readings), `tariff` and the meter's own date and time.
 */
export const SystemMeterSchema = Type.Object({
  ...meterFields,
  manufacturer: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  report_interval: Type.Optional(Type.Number()),
  tariff: Type.Optional(Type.Integer()),
  date: Type.Optional(Type.String()),
  time: Type.Optional(Type.String()),
});
export type SystemMeterView = Static<typeof SystemMeterSchema>;

/** A direction of instantaneous power in the report, kW: total and per phase. */
export const ReportPowerSchema = Type.Object(optionalEach(['total', 'l1', 'l2', 'l3'], () => Type.Number()));
export type ReportPower = Static<typeof ReportPowerSchema>;

const numberMap = Type.Record(Type.String(), Type.Number());

/** An M-Bus channel of the report. */
export const ReportVolumeSchema = Type.Object({
  bus: Type.Integer(),
  meter_id: Type.Optional(Type.String()),
  date_time: Type.Optional(Type.String()),
  cumulative: Type.Optional(Type.Number()),
});
export type ReportVolume = Static<typeof ReportVolumeSchema>;

/** The `report` object: fields appear only when the meter sent them. */
export const ReportBodySchema = Type.Object({
  id: Type.Integer(),
  interval: Type.Optional(Type.Number()),
  tariff: Type.Optional(Type.Integer()),
  date_time: Type.Optional(Type.String({ format: 'date-time' })),
  date_time_local: Type.Optional(Type.String()),
  date_time_utc: Type.Optional(Type.String()),
  instantaneous_power: Type.Optional(
    Type.Object({
      active: Type.Optional(
        Type.Object({
          positive: Type.Optional(ReportPowerSchema),
          negative: Type.Optional(ReportPowerSchema),
        }),
      ),
      reactive: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
  voltage: Type.Optional(numberMap),
  current: Type.Optional(numberMap),
  energy: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  max_demand: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  power_factor: Type.Optional(Type.Number()),
  /** Grid frequency in Hz (OBIS 14.7.0), only when the meter measures it (the device's report allows extra keys). */
  frequency: Type.Optional(Type.Number()),
  conv_factor: Type.Optional(Type.Number()),
  volume: Type.Optional(Type.Array(ReportVolumeSchema)),
});
export type ReportBody = Static<typeof ReportBodySchema>;

/** The `system` object of the report. */
export const ReportSystemSchema = Type.Object({
  id: Type.String(),
  date_time: Type.String(),
  date_time_local: Type.String(),
  date_time_utc: Type.String(),
  boot_id: Type.String(),
  time_since_boot: Type.Number(),
});
export type ReportSystem = Static<typeof ReportSystemSchema>;

/** GET /api/v1/report. */
export const ReportViewSchema = Type.Object({
  report: ReportBodySchema,
  meter: MeterViewSchema,
  system: ReportSystemSchema,
});
export type ReportView = Static<typeof ReportViewSchema>;

/** GET /api/v1/variables as the device's local-reading documentation shows it: [{"1_8_0":"6643.003"}, ...]. */
export const VariablesSchema = Type.Array(
  Type.Record(Type.String(), Type.String(), { minProperties: 1, maxProperties: 1 }),
);
export type VariablesView = Static<typeof VariablesSchema>;
