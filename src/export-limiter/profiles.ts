/**
 * The inverter profiles the export limiter drives (docs/architecture.md#export-limiter): their
 * names and what a driver does (inverter-driver.ts), and the driver for a profile. The drivers:
 * SunSpec in sunspec-driver.ts; SolarEdge, Huawei and Victron in vendor-drivers.ts.
 */
import type { RegisterLink } from './modbus-link.js';
import type { InverterDriver, InverterProfileName } from './inverter-driver.js';
import { SunSpecDriver } from './sunspec-driver.js';
import { HuaweiDriver, SolarEdgeDriver, VictronEssDriver } from './vendor-drivers.js';

export {
  INVERTER_PROFILES,
  type InverterDriver,
  type InverterFacts,
  type InverterProfileName,
} from './inverter-driver.js';

/** The driver of a profile (`sunspec`, `fronius` and `sma` share the SunSpec one). */
export function createDriver(link: RegisterLink, profile: InverterProfileName): InverterDriver {
  if (profile === 'solaredge') return new SolarEdgeDriver(link);
  if (profile === 'huawei') return new HuaweiDriver(link);
  if (profile === 'victron_ess') return new VictronEssDriver(link);
  return new SunSpecDriver(link, profile);
}
