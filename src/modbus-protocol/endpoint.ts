import type { BusLine } from './rtu-bus.js';
import { isDevicePath } from '../serial/device-path.js';

/**
 * Where a Modbus device the gateway drives is reached (the export limiter's inverters): a TCP
 * connection of its own, or a unit on an RS485 bus shared with the meters there
 * (docs/architecture.md#shared-rs485-bus). Parsed here, below the meters and the limiter, so the
 * rule that keeps a bus's units apart can read both.
 */
/** Where an inverter is reached: `modbus-tcp://host:port?unit=n`. */
export interface TcpEndpoint {
  kind: 'tcp';
  host: string;
  port: number;
  unit: number;
}

/**
 * `modbus-rtu:/dev/ttyUSB0?baud=9600&unit=1[&parity=none&stopbits=1]`: a unit on an RS485 bus, the
 * meter sources' syntax (docs/architecture.md#meter-source); the bus is shared with the meters and
 * inverters on the same device path (docs/architecture.md#shared-rs485-bus).
 */
export interface RtuEndpoint extends BusLine {
  kind: 'rtu';
  unit: number;
}

export type InverterEndpoint = TcpEndpoint | RtuEndpoint;

const BAUD_RATES = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200];
const RTU_PARAMS = new Set(['baud', 'unit', 'parity', 'stopbits', 'stop_bits']);

/** Parses `modbus-tcp://host[:port][?unit=n]` (port 502 and unit 1 by default) or a `modbus-rtu:` source; undefined when neither. */
export function parseInverterSource(source: string): InverterEndpoint | undefined {
  if (source.startsWith('modbus-rtu:')) return parseRtu(source.slice('modbus-rtu:'.length));
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'modbus-tcp:' || !url.hostname) return undefined;
  const port = url.port ? Number(url.port) : 502;
  const unit = unitOf(url.searchParams);
  if (!Number.isInteger(port) || port < 1 || port > 65535 || unit === undefined) return undefined;
  return { kind: 'tcp', host: url.hostname.replace(/^\[|\]$/g, ''), port, unit };
}

function unitOf(params: URLSearchParams): number | undefined {
  const text = params.get('unit') ?? '1';
  if (!/^\d{1,3}$/.test(text)) return undefined;
  const unit = Number(text);
  return unit > 247 ? undefined : unit;
}

/** `PATH?baud=9600&unit=1&parity=none&stopbits=1` (9600 baud, 8N1, unit 1 by default). */
function parseRtu(rest: string): RtuEndpoint | undefined {
  const at = rest.indexOf('?');
  const path = at < 0 ? rest : rest.slice(0, at);
  const params = new URLSearchParams(at < 0 ? '' : rest.slice(at + 1));
  if (!isDevicePath(path) || path.length < 2) return undefined;
  if ([...params.keys()].some((key) => !RTU_PARAMS.has(key))) return undefined;
  const baudRate = Number(params.get('baud') ?? '9600');
  const parity = params.get('parity') ?? 'none';
  const stopBits = Number(params.get('stopbits') ?? params.get('stop_bits') ?? '1');
  const unit = unitOf(params);
  if (!BAUD_RATES.includes(baudRate) || (stopBits !== 1 && stopBits !== 2)) return undefined;
  if (parity !== 'none' && parity !== 'even' && parity !== 'odd') return undefined;
  // Unit 0 is the RTU broadcast address: no device answers it (Modbus over Serial Line V1.02 §2.2).
  if (unit === undefined || unit < 1) return undefined;
  return { kind: 'rtu', path, baudRate, parity, stopBits, unit };
}
