import type { MeterIdentity, MeterInterface, MeterProtocol } from './reading.js';

/** meter.status values (docs/architecture.md#meter-status). */
export const METER_STATUSES = [
  'NOT CONNECTED',
  'NO DATA',
  'RECOGNITION',
  'OK',
  'NOT RECOGNIZED',
  'ENCRYPTION KEY',
  'KEY REQUIRED',
] as const;
export type MeterStatus = (typeof METER_STATUSES)[number];

/** What is known about the meter right now: status plus what the transport and parser told. */
export interface MeterState {
  status: MeterStatus;
  interface: MeterInterface;
  protocol?: MeterProtocol;
  identity: MeterIdentity;
}

/** Facts about this gateway that the report, template and system endpoint show. */
export interface SystemFacts {
  /** 12 upper-case hex digits, stable across restarts (derived from the machine id). */
  id: string;
  model: string;
  firmware: string;
  /** Random id of this daemon run (uuid). */
  bootId: string;
  /** Wall clock ms at daemon start. */
  bootTime: number;
}
