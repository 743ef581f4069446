import { PROFILE_NAMES, type MeterProfileName } from '../modbus-protocol/profiles/catalogue.js';
import type { MeterInterface } from '../reading/reading.js';
import { parseSerialEndpoint, RTU_ENDPOINT_PARAMS } from '../modbus-protocol/serial-endpoint.js';
import { DEVICE_PATH_RULE, isDevicePath } from '../serial/device-path.js';
import { parseDongle, type DongleSource } from './dongles/dongle-uri.js';
import { SourceError } from './source-error.js';
import { onlyKnownParams } from './source-params.js';

export { SourceError } from './source-error.js';

export type { DongleSource } from './dongles/dongle-uri.js';

/**
 * `meter.source`, one URI (docs/architecture.md#meter-source):
 *   simulator
 *   serial:/dev/ttyUSB0?protocol=auto&baud=115200&parity=none&interface=P1
 *   tcp://host:port?protocol=dsmr
 *   file:captures/x.txt?interval=1&loop=true&protocol=auto
 *   http://host/api/v1/live (another gateway's SSE; user:password@ for Basic/Digest)
 *   modbus-rtu:/dev/ttyUSB0?unit=1&profile=sdm630&baud=9600&parity=none&interval=1
 *   modbus-tcp://host:502?unit=1&profile=sunspec&interval=1
 *   homewizard://host[:port]?interval=1&telegram=1 (a HomeWizard P1 meter's local API v1)
 *   shelly://host[:port]?interval=1 (a Shelly Pro 3EM's Gen2 RPC over HTTP)
 * The Modbus sources poll a meter (Eastron, Chint, SunSpec) as the bus master, decoding its
 * registers with the same profile maps the slaves serve.
 */
export type ProtocolChoice = 'auto' | 'dsmr' | 'sml' | 'd0';

export type MeterSource =
  | { kind: 'simulator' }
  | {
      kind: 'serial';
      path: string;
      protocol: ProtocolChoice;
      baudRate?: number;
      dataBits?: 7 | 8;
      parity?: 'none' | 'even' | 'odd';
      stopBits?: 1 | 2;
      meterInterface: MeterInterface;
      /** IEC 62056-21: `request` (sign-on, modes A/B/C, polled) or `push` (mode D, listen only). */
      d0Mode?: 'request' | 'push';
      /** IEC 62056-21 request mode: start-to-start time between readouts (`poll=` seconds). */
      pollIntervalMs?: number;
      /** IEC 62056-21 request mode: device address in `/?address!` (`address=`). */
      address?: string;
    }
  | { kind: 'tcp'; host: string; port: number; protocol: ProtocolChoice }
  | { kind: 'file'; path: string; protocol: ProtocolChoice; intervalMs: number; loop: boolean }
  | { kind: 'remote'; url: string; username: string; password: string }
  | ({
      kind: 'modbus-rtu';
      path: string;
      baudRate: number;
      parity: 'none' | 'even' | 'odd';
      stopBits: 1 | 2;
    } & ModbusPoll)
  | ({ kind: 'modbus-tcp'; host: string; port: number } & ModbusPoll)
  | DongleSource;

/** What a Modbus meter source polls: the meter's unit id, its register map and the poll period. */
export interface ModbusPoll {
  unitId: number;
  profile: MeterProfileName;
  intervalMs: number;
}

export type ModbusSource = Extract<MeterSource, { kind: 'modbus-rtu' | 'modbus-tcp' }>;

const PROTOCOLS: readonly ProtocolChoice[] = ['auto', 'dsmr', 'sml', 'd0'];

function protocolOf(params: URLSearchParams, source: string): ProtocolChoice {
  const value = (params.get('protocol') ?? 'auto').toLowerCase();
  if (value === 'iec62056-21') return 'd0';
  if (!PROTOCOLS.includes(value as ProtocolChoice)) {
    throw new SourceError(source, `protocol must be one of ${PROTOCOLS.join(', ')}`);
  }
  return value as ProtocolChoice;
}

const LINE_PARAMS = RTU_ENDPOINT_PARAMS.filter((param) => param !== 'unit');
/** A Modbus meter source's own parameters beside the unit (and the line of `modbus-rtu:`). */
const MODBUS_METER_PARAMS = ['profile', 'interval'];

function splitQuery(rest: string): [string, URLSearchParams] {
  const q = rest.indexOf('?');
  return q < 0 ? [rest, new URLSearchParams()] : [rest.slice(0, q), new URLSearchParams(rest.slice(q + 1))];
}

export type SerialSource = Extract<MeterSource, { kind: 'serial' }>;

function parseSerial(source: string, rest: string): MeterSource {
  const [path, params] = splitQuery(rest);
  if (!isDevicePath(path)) throw new SourceError(source, `serial device must be ${DEVICE_PATH_RULE}`);
  onlyKnownParams(source, params, ['protocol', 'interface', ...LINE_PARAMS, 'mode', 'poll', 'address']);
  const result: SerialSource = {
    kind: 'serial',
    path,
    protocol: protocolOf(params, source),
    meterInterface: 'P1',
  };
  parseLineParams(source, params, result);
  parseD0Params(source, params, result);
  const iface = (
    params.get('interface') ?? (result.protocol === 'dsmr' || result.protocol === 'auto' ? 'P1' : 'OPTICAL')
  ).toUpperCase();
  if (iface !== 'P1' && iface !== 'OPTICAL' && iface !== 'TTL')
    throw new SourceError(source, 'interface must be P1, OPTICAL or TTL');
  result.meterInterface = iface;
  return result;
}

/** `baud`, `parity`, `databits`, `stopbits`: override the protocol's line defaults. */
function parseLineParams(source: string, params: URLSearchParams, result: SerialSource): void {
  const baud = params.get('baud');
  if (baud !== null) {
    const rate = Number(baud);
    if (!Number.isInteger(rate) || rate < 50 || rate > 4_000_000)
      throw new SourceError(source, 'baud must be an integer rate');
    result.baudRate = rate;
  }
  const parity = params.get('parity');
  if (parity !== null) {
    if (parity !== 'none' && parity !== 'even' && parity !== 'odd')
      throw new SourceError(source, 'parity must be none, even or odd');
    result.parity = parity;
  }
  const bits = params.get('databits') ?? params.get('data_bits');
  if (bits !== null) {
    if (bits !== '7' && bits !== '8') throw new SourceError(source, 'databits must be 7 or 8');
    result.dataBits = bits === '7' ? 7 : 8;
  }
  const stop = params.get('stopbits') ?? params.get('stop_bits');
  if (stop !== null) {
    if (stop !== '1' && stop !== '2') throw new SourceError(source, 'stopbits must be 1 or 2');
    result.stopBits = stop === '1' ? 1 : 2;
  }
}

/** `mode=request|push`, `poll=SECONDS`, `address=`: IEC 62056-21 request session settings. */
function parseD0Params(source: string, params: URLSearchParams, result: SerialSource): void {
  const mode = params.get('mode');
  if (mode !== null) {
    if (mode !== 'request' && mode !== 'push') throw new SourceError(source, 'mode must be request or push');
    result.d0Mode = mode;
  }
  const poll = params.get('poll');
  if (poll !== null) {
    const seconds = Number(poll);
    if (!Number.isFinite(seconds) || seconds < 1 || seconds > 86_400)
      throw new SourceError(source, 'poll must be seconds between readouts (1..86400)');
    result.pollIntervalMs = seconds * 1000;
  }
  const address = params.get('address');
  if (address !== null) {
    if (!/^[\x20-\x7e]{0,32}$/.test(address) || /[/?!]/.test(address))
      throw new SourceError(source, 'address must be up to 32 printable characters without / ? !');
    result.address = address;
  }
}

/** The URL of a URI-shaped source; `invalid` is the error when it does not parse. */
function urlOf(source: string, invalid: string): URL {
  try {
    return new URL(source);
  } catch {
    throw new SourceError(source, invalid);
  }
}

function parseTcp(source: string): MeterSource {
  const url = urlOf(source, 'not a valid tcp://host:port URI');
  const port = Number(url.port);
  if (!url.hostname || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new SourceError(source, 'tcp source needs a host and a port (tcp://host:port)');
  }
  onlyKnownParams(source, url.searchParams, ['protocol']);
  return {
    kind: 'tcp',
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    protocol: protocolOf(url.searchParams, source),
  };
}

function parseFile(source: string, rest: string): MeterSource {
  const [path, params] = splitQuery(rest);
  if (!path) throw new SourceError(source, 'file source needs a path (file:captures/x.txt)');
  onlyKnownParams(source, params, ['protocol', 'interval', 'loop']);
  const interval = Number(params.get('interval') ?? '1');
  if (!Number.isFinite(interval) || interval < 0 || interval > 3600) {
    throw new SourceError(source, 'interval must be seconds between frames (0..3600)');
  }
  const loop = params.get('loop');
  if (loop !== null && loop !== 'true' && loop !== 'false')
    throw new SourceError(source, 'loop must be true or false');
  return {
    kind: 'file',
    path,
    protocol: protocolOf(params, source),
    intervalMs: interval * 1000,
    loop: loop !== 'false',
  };
}

function parseRemote(source: string): MeterSource {
  const url = urlOf(source, 'not a valid http:// URL');
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return { kind: 'remote', url: url.toString(), username, password };
}

const METER_PROFILE_NAMES = PROFILE_NAMES.filter((name): name is MeterProfileName => name !== 'whatwatt');

/** `profile` and `interval` (seconds, 0.1..3600) of a Modbus meter source; its unit comes from the caller. */
function parseModbusPoll(
  source: string,
  params: URLSearchParams,
  defaultProfile: MeterProfileName,
  unitId: number,
): ModbusPoll {
  const profile = (params.get('profile') ?? defaultProfile).toLowerCase() as MeterProfileName;
  if (!METER_PROFILE_NAMES.includes(profile))
    throw new SourceError(source, `profile must be one of ${METER_PROFILE_NAMES.join(', ')}`);
  const interval = Number(params.get('interval') ?? '1');
  if (!Number.isFinite(interval) || interval < 0.1 || interval > 3600)
    throw new SourceError(source, 'interval must be seconds between polls (0.1..3600)');
  return { unitId, profile, intervalMs: interval * 1000 };
}

/** The line and unit by the one serial Modbus endpoint rule (../modbus-protocol/serial-endpoint.ts). */
function parseModbusRtu(source: string, rest: string): MeterSource {
  const [, params] = splitQuery(rest);
  // A mistyped parameter is named with a hint first.
  onlyKnownParams(source, params, [...RTU_ENDPOINT_PARAMS, ...MODBUS_METER_PARAMS]);
  const parsed = parseSerialEndpoint(rest, MODBUS_METER_PARAMS);
  if (!parsed.ok) throw new SourceError(source, parsed.problem);
  const { path, baudRate, parity, stopBits, unit } = parsed.endpoint;
  return {
    kind: 'modbus-rtu',
    path,
    baudRate,
    parity,
    stopBits,
    ...parseModbusPoll(source, params, 'sdm630', unit),
  };
}

function parseModbusTcp(source: string): MeterSource {
  const url = urlOf(source, 'not a valid modbus-tcp://host:port URI');
  const port = Number(url.port || '502');
  if (!url.hostname || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new SourceError(source, 'modbus-tcp source needs a host (modbus-tcp://host:502)');
  onlyKnownParams(source, url.searchParams, ['unit', ...MODBUS_METER_PARAMS]);
  // Over TCP the unit id may also be 0 or 255, the server itself (MODBUS Messaging on TCP/IP
  // Implementation Guide V1.0b, unit identifier).
  const unit = Number(url.searchParams.get('unit') ?? '1');
  if (!Number.isInteger(unit) || unit < 0 || unit > 255)
    throw new SourceError(source, 'unit must be the meter unit id (1..247)');
  return {
    kind: 'modbus-tcp',
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    ...parseModbusPoll(source, url.searchParams, 'sunspec', unit),
  };
}

export function parseSource(source: string): MeterSource {
  const text = source.trim();
  if (text === 'simulator') return { kind: 'simulator' };
  if (text.startsWith('serial:')) return parseSerial(text, text.slice('serial:'.length));
  if (text.startsWith('tcp://')) return parseTcp(text);
  if (text.startsWith('file:')) return parseFile(text, text.slice('file:'.length).replace(/^\/\/(?=\/)/, ''));
  if (text.startsWith('http://') || text.startsWith('https://')) return parseRemote(text);
  if (text.startsWith('modbus-rtu:')) return parseModbusRtu(text, text.slice('modbus-rtu:'.length));
  if (text.startsWith('modbus-tcp://')) return parseModbusTcp(text);
  if (text.startsWith('homewizard://')) return parseDongle(text, 'homewizard');
  if (text.startsWith('shelly://')) return parseDongle(text, 'shelly');
  throw new SourceError(
    source,
    'must be simulator, serial:/dev/..., tcp://host:port, file:PATH, http://host/api/v1/live, ' +
      'modbus-rtu:/dev/..., modbus-tcp://host:port, homewizard://host or shelly://host',
  );
}

/** meter.interface shown before anything is known (docs/architecture.md#meter-status). */
export function interfaceOfSource(source: string): MeterInterface {
  try {
    const parsed = parseSource(source);
    switch (parsed.kind) {
      case 'simulator':
        return 'SIMULATOR';
      case 'serial':
        return parsed.meterInterface;
      case 'tcp':
        return 'TCP';
      case 'file':
        return 'FILE';
      case 'remote':
        return 'REMOTE';
      case 'modbus-rtu':
        return 'RS485';
      case 'modbus-tcp':
        return 'TCP';
      case 'homewizard':
      case 'shelly':
        return 'REMOTE';
    }
  } catch {
    return 'P1';
  }
}

/**
 * The source as it may be shown: a remote source's password is cut out of the URI
 * (`passwordLength` tells whether one is set).
 */
export function redactSource(source: string): { shown: string; passwordLength: number } {
  if (!/^https?:\/\//i.test(source)) return { shown: source, passwordLength: 0 };
  try {
    const url = new URL(source);
    if (url.password === '') return { shown: source, passwordLength: 0 };
    const passwordLength = decodeURIComponent(url.password).length;
    url.password = '';
    return { shown: url.toString(), passwordLength };
  } catch {
    return { shown: source, passwordLength: 0 };
  }
}
