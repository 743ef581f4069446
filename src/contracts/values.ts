/**
 * The values the API's shapes enumerate or bound, for the server code that needs them at run time
 * without loading the schemas (and TypeBox) at start-up: the schemas in this folder are built
 * from them, and read only when GET /api/v1/openapi.json is asked or a body is checked
 * (docs/architecture.md#api-contracts).
 */

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
export const METER_INTERFACES = [
  'P1',
  'OPTICAL',
  'TTL',
  'RS485',
  'TCP',
  'FILE',
  'SIMULATOR',
  'REMOTE',
  'VIRTUAL',
] as const;
export const METER_PROTOCOLS = ['DSMR', 'SML', 'IEC62056-21', 'MODBUS', 'VIRTUAL'] as const;

/** The resolutions of the history store, finest first. */
export const RESOLUTIONS = ['1m', '15m', '1d'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];
/** The power quantities the recent-power buffer keeps, kW by live key (docs/architecture.md#live-payload). */
export const RECENT_KEYS = [
  'P_In',
  'P_Out',
  'P_P1_In',
  'P_P2_In',
  'P_P3_In',
  'P_P1_Out',
  'P_P2_Out',
  'P_P3_Out',
] as const;
/** At most this many readings in the recent buffer (one a second over the window, a little more for faster meters). */
export const RECENT_CAPACITY = 600;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
/** Modbus function codes of a write: 5 single coil, 6 single register, 15 coils, 16 registers. */
export const MODBUS_FUNCS = [5, 6, 15, 16] as const;
export type ModbusFunc = (typeof MODBUS_FUNCS)[number];
export const VALUE_TYPES = ['hex', 'short', 'int', 'long', 'float', 'double'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];
export const BACKUP_FORMAT = 'meter-gateway-settings';

/** How long a test waits for the first reading by default, and at most (s). */
export const METER_TEST_DEFAULT_WAIT_S = 10;
export const METER_TEST_MAX_WAIT_S = 30;
/** The role a meter plays (docs/architecture.md#several-meters). */
export const METER_ROLES = ['grid', 'pv', 'battery', 'ev', 'heat_pump', 'consumer', 'other'] as const;
export type MeterRole = (typeof METER_ROLES)[number];
/** The primary meter, a polled meter with a source of its own, or a virtual one computed from others. */
export const METER_KINDS = ['primary', 'polled', 'virtual'] as const;

/** The peak guard's states (docs/architecture.md#peak-guard): `off` while disabled. */
export const PEAK_STATES = ['off', 'idle', 'warning', 'shedding', 'over_limit', 'stale'] as const;

/** One OBIS value group C or D (0..254) or E (0..255, 255: every E), as 1 to 3 decimal digits. */
const OBIS_CD = '(?:[01]?\\d?\\d|2[0-4]\\d|25[0-4])';
const OBIS_E = '(?:[01]?\\d?\\d|2[0-4]\\d|25[0-5])';

/**
 * The OBIS `C.D.E` code of a custom meter scaler (IEC 62056-6-1 value groups C, D, E; C and D
 * 0..254, E 0..255 where 255 means every E of C.D), as a regular expression's source: the API's
 * schema and the config's check both use it (docs/architecture.md#meter-scalers).
 */
export const OBIS_CDE_PATTERN = `^${OBIS_CD}\\.${OBIS_CD}\\.${OBIS_E}$`;

/** Custom meter scalers (docs/architecture.md#meter-scalers): a power of ten per register, and how many. */
export const SCALER_LIMITS = { min: -6, max: 6, entries: 64 } as const;
