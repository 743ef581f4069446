/**
 * The Modbus RTU slave's slice of the configuration and the shapes around it (rtu-service.ts): its
 * status facts and counters, and the serial line, port and feed settings derived from
 * services.modbus_rtu.
 */
import type { AppConfig } from '../config/types.js';
import type { ProfileName } from '../modbus-protocol/profiles/catalogue.js';
import type { SlaveLine } from '../modbus-protocol/profiles/grid-values.js';
import type { MeterRef, OutputStatus } from '../output.js';
import type { LineSettings } from '../serial/line-settings.js';
import type { FeedSettings } from './register-feed.js';

/** The RTU slave's counters, read from the slave while the port is open. */
export interface ModbusRtuCounters {
  requests: number;
  exceptions: number;
  bad_frames: number;
  other_unit: number;
}

/** The facts of the `modbus_rtu` status line: the port and line it serves, the meter it emulates, its counters. */
export type ModbusRtuFacts = ModbusRtuCounters & {
  device: string;
  line: string;
  unit_id: number;
  profile: ProfileName;
  /** services.modbus_rtu.meter. */
  meter: string;
  /** Whether that meter runs; while it does not, the slave serves the profile's "no data" values. */
  meter_running: boolean;
};

export type ModbusRtuStatus = OutputStatus<ModbusRtuFacts>;

/** services.modbus_rtu. */
export type RtuSettings = AppConfig['services']['modbus_rtu'];

/** The RTU slave's settings, the meter it emulates and the custom layout its whatwatt profile serves. */
export interface RtuSlice {
  rtu: RtuSettings;
  /** services.modbus_rtu.meter, resolved by the runner. */
  meter: MeterRef;
  layout: AppConfig['modbus']['layout'];
  /** The frequency served while the meter sends none (modbus.nominal_frequency). */
  nominalFrequency: number;
}

/** The serial line and unit id the slave answers with. */
function slaveLine(rtu: RtuSettings): SlaveLine {
  return {
    unitId: rtu.unit_id,
    baudRate: rtu.baud,
    parity: rtu.parity,
    stopBits: rtu.stop_bits === 2 ? 2 : 1,
  };
}

/** The line the port is opened with (8 data bits). */
export function lineSettings(rtu: RtuSettings): LineSettings {
  const line = slaveLine(rtu);
  return { baudRate: line.baudRate, dataBits: 8, parity: line.parity, stopBits: line.stopBits };
}

/** What the port is opened with: every RTU setting but those that only change the register values. */
export function portSettings(rtu: RtuSettings): string {
  const { profile: _profile, direction: _direction, meter: _meter, ...port } = rtu;
  return JSON.stringify(port);
}

/** What the register feed serves: profile, power sign and line. */
export function feedSettings(rtu: RtuSettings): FeedSettings {
  return { profile: rtu.profile, direction: rtu.direction, line: slaveLine(rtu) };
}
