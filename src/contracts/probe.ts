import Type, { type Static } from 'typebox';
import { optionalEach } from './fields.js';

/** POST /api/v1/meter/probe: the request and the probe's report. */

export const ProbeRequestSchema = Type.Object({
  device: Type.String({ description: 'absolute path of the serial device', minLength: 1, maxLength: 4096 }),
});
export type ProbeRequest = Static<typeof ProbeRequestSchema>;

export const ProbeStepReportSchema = Type.Object({
  label: Type.String(),
  line: Type.String({ description: '"115200 8N1"' }),
  bytes: Type.Integer(),
  outcome: Type.Enum(['found', 'no frame', 'silent', 'skipped']),
});
export type ProbeStepReport = Static<typeof ProbeStepReportSchema>;

export const ProbeResultViewSchema = Type.Object({
  status: Type.Enum(['OK', 'NOT RECOGNIZED', 'NOT CONNECTED']),
  path: Type.String(),
  protocol: Type.Optional(Type.Enum(['dsmr', 'sml', 'd0'])),
  meterProtocol: Type.Optional(Type.Enum(['DSMR', 'SML', 'IEC62056-21', 'MODBUS'])),
  line: Type.Optional(
    Type.Object({
      baudRate: Type.Integer(),
      dataBits: Type.Enum([7, 8]),
      parity: Type.Enum(['none', 'even', 'odd']),
      stopBits: Type.Enum([1, 2]),
    }),
  ),
  d0Mode: Type.Optional(
    Type.Enum(['request', 'push'], {
      description: 'IEC 62056-21: polled with sign-on (request) or sending by itself (push)',
    }),
  ),
  encrypted: Type.Optional(
    Type.Boolean({ description: 'DSMR telegrams arrive encrypted (Smarty); meter.encryption_key is needed' }),
  ),
  identity: Type.Optional(
    Type.Object(
      optionalEach(['prefix', 'vendor', 'model', 'id', 'protocolVersion', 'logicalName'], () =>
        Type.String(),
      ),
    ),
  ),
  source: Type.Optional(Type.String({ description: 'the meter.source URI to use' })),
  steps: Type.Array(ProbeStepReportSchema),
  elapsedMs: Type.Integer(),
  error: Type.Optional(Type.String({ description: 'why the port could not be used (NOT CONNECTED)' })),
});
export type ProbeResultView = Static<typeof ProbeResultViewSchema>;
