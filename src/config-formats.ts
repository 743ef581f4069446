import { registerMeterFormats } from './meter/config-formats.js';
import { registerShellyRules } from './device/shelly/config-rules.js';
import { registerModbusFormats } from './modbus/config-formats.js';
import { registerHomewizardRules } from './device/homewizard/config-rules.js';
import { registerActionFormats } from './actions/config-formats.js';
import { registerMqttRules } from './mqtt/config-rules.js';
import { registerPeakConfig } from './peak/config-rules.js';
import { registerExportLimiterConfig } from './export-limiter/config-formats.js';
import { registerPushFormats } from './push/settings.js';
import { registerPriceVariables } from './prices/contributors.js';

/**
 * The config formats and rules the outputs and the meter own; registered before the first config
 * load (docs/architecture.md#layers: the configuration layer knows no output). A module of its own
 * so that a process that only loads and writes the config (the settings durability test's writer,
 * killed and started again many times) need not load every service the daemon wires.
 */
export function registerConfigFormats(): void {
  registerModbusFormats();
  registerMeterFormats();
  registerActionFormats();
  registerMqttRules();
  registerPeakConfig();
  registerPushFormats();
  registerExportLimiterConfig();
  registerHomewizardRules();
  registerShellyRules();
  registerPriceVariables();
}
