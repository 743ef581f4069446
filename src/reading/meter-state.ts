import { METER_STATUSES } from '../contracts/values.js';
import type { MeterIdentity, MeterInterface, MeterProtocol } from './reading.js';

/** meter.status values (docs/architecture.md#meter-status). */
export { METER_STATUSES };
export type MeterStatus = (typeof METER_STATUSES)[number];

/**
 * Why a frame (or a run of bytes) was rejected. Counted by the store under these kinds:
 * - crc: framing was fine but the checksum (DSMR CRC-16/ARC, SML CRC-16/X-25, D0 BCC) did not match;
 * - parse: the frame checked out (or has no checksum) but its content could not be understood;
 * - overflow: bytes without a frame end beyond the protocol's maximum frame size were discarded;
 * - encryption: an encrypted frame that could not be decrypted (no key, wrong key).
 */
/** What a rejected frame or poll is counted as; `timeout`: a polled meter (Modbus) did not answer in time. */
export type MeterDataErrorKind = 'crc' | 'parse' | 'overflow' | 'encryption' | 'timeout';

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
