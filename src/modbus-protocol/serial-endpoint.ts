import { DEVICE_PATH_RULE, isDevicePath } from '../serial/device-path.js';
import type { BusLine } from './rtu-bus.js';

/**
 * A unit on an RS485 bus as a `modbus-rtu:` URI names it, for a meter the gateway polls
 * (meter sources, docs/architecture.md#meter-source) and an inverter it drives (the export
 * limiter): `modbus-rtu:/dev/ttyUSB0?baud=9600&unit=1[&parity=none&databits=8&stopbits=1]`, 9600
 * baud 8N1 and unit 1 by default. One parser with one set of rules, so a meter and an inverter on
 * the same device path (docs/architecture.md#shared-rs485-bus) are checked alike.
 *
 * The rules (MODBUS over Serial Line V1.02): RTU characters carry 8 data bits (§2.5.1); 9600 and
 * 19200 baud are the rates every device has (its physical layer's data signaling rates), the
 * others here are the usual optional rates of meters and inverters (1200..115200, the range of the
 * gateway's own RTU slave); unit 0 is the broadcast address that no device answers, 248..255 are
 * reserved (§2.2).
 */

/** The baud rates a serial Modbus endpoint may use. */
export const RTU_BAUD_RATES: readonly number[] = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200];

/** The query parameters of the line and the unit (the `_` spellings are accepted as well). */
export const RTU_ENDPOINT_PARAMS: readonly string[] = [
  'baud',
  'parity',
  'databits',
  'data_bits',
  'stopbits',
  'stop_bits',
  'unit',
];

/** The line and the unit of a `modbus-rtu:` URI. */
export interface SerialEndpoint extends BusLine {
  stopBits: 1 | 2;
  unit: number;
}

export type SerialEndpointResult = { ok: true; endpoint: SerialEndpoint } | { ok: false; problem: string };

/**
 * The endpoint of `PATH?QUERY` (the URI after `modbus-rtu:`), or the first problem in words.
 * `extraParams` are the caller's own parameters (a meter's `profile`, `interval`): they are let
 * through and left to the caller; any other unknown parameter is a problem.
 */
export function parseSerialEndpoint(rest: string, extraParams: readonly string[] = []): SerialEndpointResult {
  const at = rest.indexOf('?');
  const path = at < 0 ? rest : rest.slice(0, at);
  const params = new URLSearchParams(at < 0 ? '' : rest.slice(at + 1));
  const fail = (problem: string): SerialEndpointResult => ({ ok: false, problem });
  if (!isDevicePath(path) || path.length < 2) return fail(`serial device must be ${DEVICE_PATH_RULE}`);
  const known = [...RTU_ENDPOINT_PARAMS, ...extraParams];
  for (const key of params.keys())
    if (!known.includes(key))
      return fail(`unknown parameter '${key.slice(0, 32)}'; this source takes ${known.join(', ')}`);
  const baud = params.get('baud') ?? '9600';
  if (!/^\d{3,6}$/.test(baud) || !RTU_BAUD_RATES.includes(Number(baud)))
    return fail(`baud must be one of ${RTU_BAUD_RATES.join(', ')}`);
  const parity = params.get('parity') ?? 'none';
  if (parity !== 'none' && parity !== 'even' && parity !== 'odd')
    return fail('parity must be none, even or odd');
  const dataBits = params.get('databits') ?? params.get('data_bits') ?? '8';
  if (dataBits !== '8') return fail('databits must be 8: Modbus RTU uses 8 data bits');
  const stopBits = params.get('stopbits') ?? params.get('stop_bits') ?? '1';
  if (stopBits !== '1' && stopBits !== '2') return fail('stopbits must be 1 or 2');
  const unit = params.get('unit') ?? '1';
  if (!/^\d{1,3}$/.test(unit) || Number(unit) < 1 || Number(unit) > 247)
    return fail('unit must be the unit id 1..247 (0 is the broadcast address)');
  return {
    ok: true,
    endpoint: {
      path,
      baudRate: Number(baud),
      parity,
      stopBits: stopBits === '1' ? 1 : 2,
      unit: Number(unit),
    },
  };
}
