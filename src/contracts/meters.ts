import Type, { type Static } from 'typebox';
import { messageKey, MessageArgsSchema } from './message.js';
import { ReportViewSchema } from './reading.js';
import {
  METER_KINDS,
  METER_ROLES,
  METER_TEST_DEFAULT_WAIT_S,
  METER_TEST_MAX_WAIT_S,
  OBIS_CDE_PATTERN,
  SCALER_LIMITS,
} from './values.js';

/** GET /api/v1/meters and POST /api/v1/meters/test (docs/architecture.md#several-meters). */

export const MeterTestRequestSchema = Type.Object({
  source: Type.String({ description: 'the meter.source URI to test' }),
  wait: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: METER_TEST_MAX_WAIT_S,
      description: `seconds to wait for the first reading; default ${METER_TEST_DEFAULT_WAIT_S}`,
    }),
  ),
});
export type MeterTestRequest = Static<typeof MeterTestRequestSchema>;

/** POST /api/v1/meters/test: the first reading in the report's shape, or the meter status and the exact error. */
export const MeterTestAnswerSchema = Type.Union([
  Type.Intersect([Type.Object({ ok: Type.Literal(true) }), ReportViewSchema]),
  Type.Object({
    ok: Type.Literal(false),
    status: Type.String(),
    error: Type.String(),
    error_key: Type.Optional(messageKey("the error's message key")),
    error_args: Type.Optional(MessageArgsSchema),
  }),
]);
export type MeterTestAnswer = Static<typeof MeterTestAnswerSchema>;

const numberOrNull = Type.Union([Type.Number(), Type.Null()]);
const counter = (description: string) => Type.Integer({ description });

/** One meter of GET /api/v1/meters. */
export const MeterListEntrySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  name_key: Type.Optional(
    messageKey("the name's message key where the daemon chose it (the primary's default name)"),
  ),
  role: Type.Enum(METER_ROLES),
  kind: Type.Enum(METER_KINDS),
  source_kind: Type.String(),
  expression: Type.Optional(Type.String()),
  status: Type.String(),
  interface: Type.String(),
  last_reading: Type.Union([Type.String(), Type.Null()], {
    description:
      'ISO 8601 UTC time of the last valid reading, kept while the meter is silent (NO DATA); null before the first',
  }),
  power_in: numberOrNull,
  power_out: numberOrNull,
  energy_in: numberOrNull,
  energy_out: numberOrNull,
  counters: Type.Object(
    {
      frames_ok: counter('frames or polls that gave a reading'),
      crc_errors: counter('frames rejected for a wrong CRC'),
      parse_errors: counter('frames that could not be decoded (a Modbus exception reply included)'),
      overflows: counter('bytes dropped because no frame end came in time'),
      encryption_errors: counter('frames that could not be decrypted'),
      timeouts: counter('polls of a polled meter (Modbus) that got no reply within the response timeout'),
    },
    {
      description:
        "this meter's own counters since it was (re)started; a meter on a shared RS485 bus counts only its own",
    },
  ),
});
export type MeterListEntry = Static<typeof MeterListEntrySchema>;

/** GET /api/v1/meters: the meters, the primary (main) first. */
export const MeterListSchema = Type.Array(MeterListEntrySchema);

/** A meter scaler: the power of ten a register's value is multiplied by. */
export const MeterScalerSchema = Type.Object({
  obis: Type.String({ description: 'the register (OBIS code) the scaler applies to' }),
  scaler: Type.Integer({ minimum: SCALER_LIMITS.min, maximum: SCALER_LIMITS.max }),
});
export type MeterScaler = Static<typeof MeterScalerSchema>;

/** GET /api/v1/meter/scalers/current and /custom. */
export const MeterScalerListSchema = Type.Array(MeterScalerSchema, { maxItems: SCALER_LIMITS.entries });

/** One dongle of GET /api/v1/meters/discover (found by mDNS; docs/architecture.md#dongle-sources). */
export const DiscoveredDongleSchema = Type.Object({
  kind: Type.Union([Type.Literal('homewizard'), Type.Literal('shelly')]),
  name: Type.String({
    description: 'the mDNS instance name, e.g. p1meter-334455 or shellypro3em-c8f09e8e1234',
  }),
  host: Type.String({ description: 'the IPv4 address the device answered with' }),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  product: Type.String({ description: "HomeWizard's product_type (HWE-P1) or Shelly's app (Pro3EM)" }),
  source: Type.String({ description: 'the meter source URI that reads it, as meters[].source takes it' }),
});
export type DiscoveredDongle = Static<typeof DiscoveredDongleSchema>;

/** GET /api/v1/meters/discover: the dongles that answered a 3 s mDNS browse (at most 64). */
export const DiscoveredDongleListSchema = Type.Array(DiscoveredDongleSchema, { maxItems: 64 });

/**
 * A custom scaler as POST and PUT /api/v1/meter/scalers/custom take it: OBIS `C.D.E` (C and D
 * 0..254, E 0..255 where 255 means every E of C.D) and nothing else (docs/architecture.md#meter-scalers).
 */
export const MeterScalerWriteSchema = Type.Object(
  {
    obis: Type.String({
      pattern: OBIS_CDE_PATTERN,
      description: 'OBIS C.D.E of the register; E 255: every E of C.D',
    }),
    scaler: Type.Integer({ minimum: SCALER_LIMITS.min, maximum: SCALER_LIMITS.max }),
  },
  { additionalProperties: false },
);

/** The body of POST and PUT /api/v1/meter/scalers/custom; an OBIS listed twice is the config's check. */
export const MeterScalerWriteListSchema = Type.Array(MeterScalerWriteSchema, {
  maxItems: SCALER_LIMITS.entries,
});
