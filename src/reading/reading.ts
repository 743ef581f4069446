/**
 * The protocol-independent meter reading: what every parser produces and every output consumes.
 *
 * Values are keyed by the OBIS code groups C.D.E of the electricity medium (A=1, B=0 or the
 * channel the meter uses), for example `1.8.1`, `21.7.0`, `32.7.0`. Every value is already in the
 * canonical unit of its quantity (see `canonicalUnit` in ./units.ts): kW, kvar, kVA, kWh, kvarh, V,
 * A, Hz, or no unit for ratios. Parsers convert (W -> kW, Wh -> kWh, scaler applied) before they
 * hand a Reading to the store, so outputs never see meter-specific units.
 */

/** VIRTUAL: a virtual meter's reading, computed from other meters (docs/architecture.md#several-meters). */
export type MeterProtocol = 'DSMR' | 'SML' | 'IEC62056-21' | 'MODBUS' | 'VIRTUAL';

export type MeterInterface =
  'P1' | 'OPTICAL' | 'TTL' | 'RS485' | 'TCP' | 'FILE' | 'SIMULATOR' | 'REMOTE' | 'VIRTUAL';

/** Identity of the meter as far as the protocol reveals it (the report's `meter` object). */
export interface MeterIdentity {
  /** 3-letter FLAG manufacturer prefix from the identification line ("ISK", "KFM", "EMH"). */
  prefix?: string;
  /** Vendor name when known from the prefix ("Iskraemeco", ...). */
  vendor?: string;
  /** Model / identification text after the prefix ("MT382-1000"). */
  model?: string;
  /** Meter serial / equipment identifier (0-0:96.1.1 decoded, SML server id, 0.0.0). */
  id?: string;
  /** Protocol version as the meter states it ("50" for DSMR 5.0 via 1-3:0.2.8). */
  protocolVersion?: string;
  /** Logical device name (0-0:42.0.0) when sent. */
  logicalName?: string;
}

/** One M-Bus channel (gas, water, heat) attached to the meter, the report's `volume[]`. */
export interface MbusReading {
  /** M-Bus channel number (the B group of 0-B:24.2.1). */
  bus: number;
  /** Equipment identifier of the M-Bus device, decoded to text where it is hex ASCII. */
  meterId?: string;
  /** M-Bus device type (0-B:24.1.0): 3 gas, 4 heat, 7 water ... */
  deviceType?: number;
  /** Capture time of the value as ISO 8601 with offset, when the meter sends one. */
  dateTime?: string;
  /** Cumulative reading in `unit` (m3 for gas and water, GJ or kWh for heat). */
  cumulative?: number;
  unit?: string;
}

export interface ObisValue {
  value: number;
  /** Canonical unit ('' for dimensionless). */
  unit: string;
}

/**
 * Belgian maximum demand (eMUCS P1): the time of this month's peak (1-0:1.6.0, whose value is
 * `values['1.6.0']`) and the monthly peaks of 0-0:98.1.0, each with the start of its month.
 * Times are ISO 8601 with the offset; an entry the meter left empty has no time or value.
 */
export interface DemandRegisters {
  monthPeakAt?: string;
  months?: { month?: string; at?: string; kw?: number }[];
}

export interface Reading {
  /** Monotonic-safe wall clock time at which the frame completed (ms since epoch). */
  receivedAt: number;
  /** The meter's own timestamp of the reading (ISO 8601 with offset), when it sends one. */
  meterTime?: string;
  protocol: MeterProtocol;
  identity: MeterIdentity;
  /** Numeric values by OBIS C.D.E key, canonical units. */
  values: ReadonlyMap<string, ObisValue>;
  /**
   * The power-of-ten scaler the meter sent with a register, by C.D.E key, where the protocol
   * carries one (SML list entries, as DLMS class 3 registers); docs/architecture.md#meter-scalers.
   */
  scalers?: ReadonlyMap<string, number>;
  /** Active tariff (0-0:96.14.0), 1-based, when sent. */
  tariff?: number;
  /** Maximum demand registers with their times, where the meter sends them (Belgian P1). */
  demand?: DemandRegisters;
  mbus: readonly MbusReading[];
}

/** Builds the values map from plain entries; convenience for parsers and tests. */
export function valuesOf(entries: Record<string, [number, string]>): Map<string, ObisValue> {
  const map = new Map<string, ObisValue>();
  for (const [key, [value, unit]] of Object.entries(entries)) map.set(key, { value, unit });
  return map;
}
