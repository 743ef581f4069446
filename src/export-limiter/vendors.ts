/**
 * Vendor register maps the export limiter writes beside SunSpec (docs/architecture.md#export-limiter).
 *
 * SolarEdge: "Power Control Open Protocol for SolarEdge Inverters" (SolarEdge application note,
 * Enhanced Dynamic Power Control, EDPC). Holding registers, 32-bit values with the low word first:
 * - 0xF142 AdvancedPwrControlEn (int32): 1 when the installer enabled advanced power control; the
 *   EDPC registers act only then (set through SetApp or the display, never by a Modbus client here).
 * - 0xF300 EnableDynamicPowerControl (uint16, 0/1).
 * - 0xF304 MaxActivePower (float32, W): the inverter's rating.
 * - 0xF310 CommandTimeout (uint32, s, default 60): without a new dynamic command for this long the
 *   inverter takes the fallback limit.
 * - 0xF312 FallbackActivePowerLimit (float32, %, default 100).
 * - 0xF322 DynamicActivePowerLimit (float32, % of MaxActivePower).
 * The inverter serves one Modbus TCP client at a time.
 *
 * Huawei: "SUN2000 MODBUS Interface Definitions" (Huawei, inverters SUN2000 L1/M0/M1/M2). Holding
 * registers, 32-bit values with the high word first:
 * - 30073 rated power (uint32, W), 30075 Pmax (uint32, W).
 * - 32080 active power (int32, W, gain 1).
 * - 47415 active power control mode (uint16): 0 unlimited, 1 DI active scheduling, 5 zero-power
 *   grid connection, 6 power-limited grid connection (W), 7 power-limited grid connection (%).
 * - 47416 maximum feed grid power (int32, W), 47418 maximum feed grid power (int16, %, gain 10).
 *
 * Victron: "Modbus-TCP register list" of the GX device (Victron Energy, CCGX-Modbus-TCP-register-
 * list.xlsx), unit id 100 for com.victronenergy.system and com.victronenergy.settings:
 * - 2700 /Settings/CGwacs/AcPowerSetPoint (int16, W, scale 1): the ESS grid setpoint, import
 *   positive; the ESS control loop holds the grid power there on the GX's own grid meter. (2703 is
 *   the same setting in units of 100 W for sites beyond ±32 kW; 2704 MaxDischargePower and 2705 the
 *   DVCC charge current are battery limits: not written here.)
 * - 808..810 PV on AC output L1..L3, 811..813 PV on AC input L1..L3 (uint16, W), 850 DC-coupled PV
 *   (uint16, W): the system's PV power.
 */

export const SOLAREDGE = {
  ADVANCED_PWR_CONTROL_EN: 0xf142,
  ENABLE_DPC: 0xf300,
  MAX_ACTIVE_POWER: 0xf304,
  COMMAND_TIMEOUT: 0xf310,
  FALLBACK_LIMIT: 0xf312,
  DYNAMIC_LIMIT: 0xf322,
} as const;

export const HUAWEI = {
  RATED_POWER: 30073,
  P_MAX: 30075,
  ACTIVE_POWER: 32080,
  CONTROL_MODE: 47415,
  FEED_GRID_W: 47416,
  FEED_GRID_PCT: 47418,
  /** 47415 values. */
  MODE_UNLIMITED: 0,
  MODE_DI: 1,
  MODE_ZERO: 5,
  MODE_WATT: 6,
  MODE_PERCENT: 7,
} as const;

export const VICTRON = {
  UNIT: 100,
  GRID_SETPOINT: 2700,
  PV_AC_OUT: 808,
  PV_AC_IN: 811,
  PV_DC: 850,
} as const;

/** A float32 as two registers, low word first (SolarEdge's 0xF000 range). */
export function float32LowFirst(value: number): [number, number] {
  const buffer = Buffer.alloc(4);
  buffer.writeFloatBE(value);
  return [buffer.readUInt16BE(2), buffer.readUInt16BE(0)];
}

/** The float32 of two registers, low word first; null when not a finite number. */
export function readFloat32LowFirst(low: number | undefined, high: number | undefined): number | null {
  if (low === undefined || high === undefined) return null;
  const buffer = Buffer.alloc(4);
  buffer.writeUInt16BE(high & 0xffff, 0);
  buffer.writeUInt16BE(low & 0xffff, 2);
  const value = buffer.readFloatBE(0);
  return Number.isFinite(value) ? value : null;
}

/** A uint32 as two registers, low word first. */
export function uint32LowFirst(value: number): [number, number] {
  const bounded = Math.max(0, Math.min(0xffffffff, Math.round(value)));
  return [bounded % 0x10000, Math.floor(bounded / 0x10000)];
}

/** The int32 of two registers, low word first. */
export function int32LowFirst(low: number | undefined, high: number | undefined): number | null {
  if (low === undefined || high === undefined) return null;
  return ((high << 16) | low) >> 0;
}

/** The int32 of two registers, high word first. */
export function int32HighFirst(high: number | undefined, low: number | undefined): number | null {
  if (low === undefined || high === undefined) return null;
  return ((high << 16) | low) >> 0;
}

/** The uint32 of two registers, high word first. */
export function uint32HighFirst(high: number | undefined, low: number | undefined): number | null {
  if (low === undefined || high === undefined) return null;
  return high * 0x10000 + low;
}

/** A signed 16-bit value as its register word (clamped to -32768..32767). */
export function int16Word(value: number): number {
  const bounded = Math.max(-32768, Math.min(32767, Math.round(value)));
  return bounded & 0xffff;
}

/** A register word read as int16. */
export function wordInt16(word: number | undefined): number | null {
  if (word === undefined) return null;
  return word >= 0x8000 ? word - 0x10000 : word;
}
