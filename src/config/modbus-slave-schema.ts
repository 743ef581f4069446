/**
 * services.modbus and services.modbus_rtu of the convict schema (assembled in schema.ts): the
 * Modbus TCP slave and the Modbus RTU slave on an RS485 adapter, each with its register map and
 * power sign; 'modbus-profile', 'modbus-power-direction' and 'meter-id' are registered by their
 * owners at wiring time.
 */
import { DEVICE_PATH_PATTERN, DEVICE_PATH_RULE } from '../serial/device-path.js';
import { bool, int, oneOf, owned, text } from './schema-leaves.js';

export const MODBUS_TCP_SERVICE_SCHEMA = {
  enable: bool(false, 'Modbus TCP slave on services.modbus.port.'),
  port: int(502, 1, 65535, 'Modbus TCP port (1..65535).'),
  profile: owned(
    'modbus-profile',
    'whatwatt',
    'Register map the TCP slave serves: whatwatt (the spec layout), sdm630, sdm120, sdm72, dtsu666, sunspec.',
  ),
  direction: owned(
    'modbus-power-direction',
    'import_positive',
    'Sign of power in the meter profiles: import_positive (grid draw +) or export_positive.',
  ),
  units: {
    doc: 'Unit id -> meter id the TCP slave serves, e.g. {"1": "main", "2": "pv"}; "*" names the meter of every other unit id. Default: every unit id reads main; in a map without "*" an unmapped unit id answers exception 0x0B.',
    format: 'modbus-unit-map' as const,
    default: { '*': 'main' } as Record<string, string>,
  },
};

export const MODBUS_RTU_SERVICE_SCHEMA = {
  enable: bool(false, 'Modbus RTU slave on the serial device services.modbus_rtu.device (RS485 adapter).'),
  device: text('', 4096, 'Serial device of the RTU slave, e.g. /dev/ttyUSB0 or /dev/serial/by-id/...', {
    pattern: DEVICE_PATH_PATTERN,
    patternText: DEVICE_PATH_RULE,
  }),
  baud: int(9600, 1200, 115200, 'RTU baud rate (1200..115200; inverters expect 9600 mostly).'),
  parity: oneOf('none', ['none', 'even', 'odd'], 'RTU parity.'),
  stop_bits: int(1, 1, 2, 'RTU stop bits (1 or 2).'),
  unit_id: int(1, 1, 247, 'RTU unit id (slave address 1..247); requests for other ids are ignored.'),
  meter: owned('meter-id', 'main', 'Meter the RTU slave emulates: main (the primary) or an id of meters.'),
  profile: owned(
    'modbus-profile',
    'sdm630',
    'Register map the RTU slave serves: sdm630, sdm120, sdm72, dtsu666, sunspec or whatwatt.',
  ),
  direction: owned(
    'modbus-power-direction',
    'import_positive',
    'Sign of power in the meter profiles: import_positive (grid draw +) or export_positive.',
  ),
};
