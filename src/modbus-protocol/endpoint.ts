import { parseSerialEndpoint, type SerialEndpoint } from './serial-endpoint.js';

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
 * meter sources' syntax and rules (./serial-endpoint.ts); the bus is shared with the meters and
 * inverters on the same device path (docs/architecture.md#shared-rs485-bus).
 */
export interface RtuEndpoint extends SerialEndpoint {
  kind: 'rtu';
}

export type InverterEndpoint = TcpEndpoint | RtuEndpoint;

/** What an inverter source must look like, for the refusal of one that does not. */
export const INVERTER_SOURCE_RULE =
  'must be modbus-tcp://host[:port][?unit=1..247] or modbus-rtu:/dev/...?baud=9600&unit=1..247[&parity=none|even|odd&stopbits=1|2]';

/**
 * Parses `modbus-tcp://host[:port][?unit=n]` (port 502 and unit 1 by default) or a `modbus-rtu:`
 * source; the problem in words when neither (a `modbus-rtu:` one names what is wrong with it).
 */
export function inverterEndpointOf(
  source: string,
): { ok: true; endpoint: InverterEndpoint } | { ok: false; problem: string } {
  if (source.startsWith('modbus-rtu:')) {
    const parsed = parseSerialEndpoint(source.slice('modbus-rtu:'.length));
    if (!parsed.ok) return { ok: false, problem: `${INVERTER_SOURCE_RULE}: ${parsed.problem}` };
    return { ok: true, endpoint: { kind: 'rtu', ...parsed.endpoint } };
  }
  const endpoint = parseTcp(source);
  return endpoint ? { ok: true, endpoint } : { ok: false, problem: INVERTER_SOURCE_RULE };
}

/** The endpoint of an inverter source; undefined when it is none (see inverterEndpointOf). */
export function parseInverterSource(source: string): InverterEndpoint | undefined {
  const parsed = inverterEndpointOf(source);
  return parsed.ok ? parsed.endpoint : undefined;
}

function parseTcp(source: string): TcpEndpoint | undefined {
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
