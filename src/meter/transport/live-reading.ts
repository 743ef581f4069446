import { QUANTITIES } from '../../reading/quantities.js';
import type { MbusReading, MeterIdentity, MeterProtocol, ObisValue, Reading } from '../../reading/reading.js';
import { MeterDataError } from '../decoder.js';

/**
 * Turns another gateway's live payload (docs/architecture.md#live-payload: flat keys from the quantity
 * table's `live` column, `T`, `Vol`) back into a Reading. Values are already in canonical units.
 * `Date`, `Time` and `Uptime` describe the sending gateway, not the meter, and are not carried over.
 */

const LIVE_KEYS: ReadonlyArray<{ live: string; obis: string; unit: string }> = QUANTITIES.flatMap(
  (quantity) =>
    quantity.live === undefined ? [] : [{ live: quantity.live, obis: quantity.obis, unit: quantity.unit }],
);

export interface RemoteMeter {
  protocol: MeterProtocol;
  identity: MeterIdentity;
}

export type LiveResult = { ok: true; reading: Reading } | { ok: false; error: MeterDataError };

function parseError(message: string, details: Record<string, unknown> = {}): LiveResult {
  return { ok: false, error: new MeterDataError('parse', message, details) };
}

function volumeOf(entry: unknown): MbusReading | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { Bus, M_ID, DT, Cum } = entry as Record<string, unknown>;
  if (typeof Bus !== 'number' || !Number.isInteger(Bus)) return undefined;
  const channel: MbusReading = { bus: Bus };
  if (typeof M_ID === 'string') channel.meterId = M_ID;
  if (typeof DT === 'string') channel.dateTime = DT;
  if (typeof Cum === 'number' && Number.isFinite(Cum)) channel.cumulative = Cum;
  return channel;
}

/** One `event: live` data line -> Reading; malformed JSON or a payload without values is a 'parse' rejection. */
export function readingFromLive(data: string, receivedAt: number, meter: RemoteMeter): LiveResult {
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch {
    return parseError('live event is not JSON', { data: data.slice(0, 80) });
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return parseError('live event is not a JSON object');
  }
  const fields = payload as Record<string, unknown>;
  const values = new Map<string, ObisValue>();
  for (const { live, obis, unit } of LIVE_KEYS) {
    const value = fields[live];
    if (typeof value === 'number' && Number.isFinite(value)) values.set(obis, { value, unit });
  }
  const mbus = Array.isArray(fields.Vol) ? fields.Vol.flatMap((entry) => volumeOf(entry) ?? []) : [];
  if (values.size === 0 && mbus.length === 0) return parseError('live event carries no known value');
  const reading: Reading = {
    receivedAt,
    protocol: meter.protocol,
    identity: { ...meter.identity },
    values,
    mbus,
  };
  if (typeof fields.T === 'number' && Number.isInteger(fields.T) && fields.T > 0) reading.tariff = fields.T;
  return { ok: true, reading };
}

const PROTOCOLS: readonly MeterProtocol[] = ['DSMR', 'SML', 'IEC62056-21', 'MODBUS'];

/**
 * Protocol and identity from the `meter` object of a gateway report (docs/architecture.md#report-shape);
 * undefined when absent.
 */
export function remoteMeterOf(report: unknown): RemoteMeter | undefined {
  if (typeof report !== 'object' || report === null) return undefined;
  const meter = (report as Record<string, unknown>).meter;
  if (typeof meter !== 'object' || meter === null) return undefined;
  const fields = meter as Record<string, unknown>;
  const protocol = PROTOCOLS.find((p) => p === fields.protocol);
  if (!protocol) return undefined;
  const identity: MeterIdentity = {};
  const text = (key: string): string | undefined =>
    typeof fields[key] === 'string' && fields[key] !== '' ? (fields[key] as string) : undefined;
  const map: Array<[keyof MeterIdentity, string]> = [
    ['id', 'id'],
    ['model', 'model'],
    ['vendor', 'vendor'],
    ['prefix', 'prefix'],
    ['protocolVersion', 'protocol_version'],
    ['logicalName', 'logical_name'],
  ];
  for (const [target, source] of map) {
    const value = text(source);
    if (value !== undefined) identity[target] = value;
  }
  return { protocol, identity };
}
