import {
  choiceFormat,
  FormatError,
  jsonFromEnv,
  registerFormats,
  type ConfigFormat,
} from '../config/formats.js';
import { describeIssues, validateLayout } from './layout-validate.js';
import { PROFILE_NAMES, type ProfileName } from '../modbus-protocol/profiles/catalogue.js';
import { POWER_DIRECTIONS, type PowerDirection } from '../modbus-protocol/profiles/grid-values.js';
import { registerUnitMapFormats } from './unit-map.js';

declare module '../config/formats.js' {
  interface FormatTypes {
    /** The custom layout as the API stored it (validated by validateLayout). */
    'modbus-layout': unknown[];
    'modbus-profile': ProfileName;
    'modbus-power-direction': PowerDirection;
  }
}

/**
 * The full register-set rules of the layout check, so a layout from the admin's file or the
 * environment is held to the same rules as one posted to /api/v1/modbus.
 */
const MODBUS_LAYOUT: ConfigFormat = {
  name: 'modbus-layout',
  validate(value) {
    const result = validateLayout(value);
    if (!result.ok) {
      throw new FormatError(
        'invalid-layout',
        `must be null or a valid Modbus layout: ${describeIssues(result.issues)}`,
      );
    }
  },
  describe: () => 'register sets or null',
  fromEnv: jsonFromEnv,
};

/** The register map a slave serves (services.modbus.profile, services.modbus_rtu.profile). */
const MODBUS_PROFILE = choiceFormat('modbus-profile', () => PROFILE_NAMES);

/** The sign of power in the profiles (services.modbus.direction, services.modbus_rtu.direction). */
const POWER_DIRECTION = choiceFormat('modbus-power-direction', () => POWER_DIRECTIONS);

/** Registers the Modbus formats of the config schema; the daemon calls it before the config loads. */
export function registerModbusFormats(): void {
  registerFormats([MODBUS_LAYOUT, MODBUS_PROFILE, POWER_DIRECTION]);
  registerUnitMapFormats();
}
