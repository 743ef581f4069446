import { QUANTITIES } from './quantities.js';
import type { MbusReading, Reading } from './reading.js';
import type { MeterState, SystemFacts } from './meter-state.js';
import type { MeterView, ReportSystem, ReportView, ReportVolume } from '../contracts/reading.js';
import { dateTimes } from './time-format.js';

export interface ReportInput {
  /** Latest reading, undefined before the first one (or after it went stale). */
  reading: Reading | undefined;
  reportId: number;
  /** Measured seconds between the last two readings. */
  interval: number | undefined;
  meter: MeterState;
  system: SystemFacts;
  convFactor: number | undefined;
  /** Wall clock ms at which the report is built. */
  now: number;
}

type JsonObject = { [key: string]: unknown };

/** Sets obj[path...] = value, creating the intermediate objects in table order. */
function setPath(target: JsonObject, path: readonly string[], value: unknown): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    let child = node[key] as JsonObject | undefined;
    if (child === undefined) {
      child = {};
      node[key] = child;
    }
    node = child;
  }
  node[path[path.length - 1]!] = value;
}

export function volumeEntry(channel: MbusReading): ReportVolume {
  const entry: ReportVolume = { bus: channel.bus };
  if (channel.meterId !== undefined) entry.meter_id = channel.meterId;
  if (channel.dateTime !== undefined) entry.date_time = channel.dateTime;
  if (channel.cumulative !== undefined) entry.cumulative = channel.cumulative;
  return entry;
}

export function meterObject(meter: MeterState): MeterView {
  const { identity } = meter;
  const out: MeterView = { status: meter.status, interface: meter.interface };
  if (meter.protocol !== undefined) out.protocol = meter.protocol;
  if (identity.protocolVersion !== undefined) out.protocol_version = identity.protocolVersion;
  if (identity.id !== undefined) out.id = identity.id;
  if (identity.model !== undefined) out.model = identity.model;
  if (identity.logicalName !== undefined) out.logical_name = identity.logicalName;
  if (identity.vendor !== undefined) out.vendor = identity.vendor;
  if (identity.prefix !== undefined) out.prefix = identity.prefix;
  return out;
}

export function systemObject(system: SystemFacts, now: number): ReportSystem {
  return {
    id: system.id,
    ...dateTimes(now),
    boot_id: system.bootId,
    time_since_boot: Math.round((now - system.bootTime) / 1000),
  };
}

/**
 * The report JSON of GET /api/v1/report (docs/architecture.md#report-shape). A field appears only when the
 * meter sent it (or it is derived, see derive.ts); nothing is filled with 0.
 */
export function buildReport(input: ReportInput): ReportView {
  const { reading } = input;
  const report: ReportView['report'] = { id: input.reportId };
  if (input.interval !== undefined) report.interval = input.interval;
  if (reading) {
    if (reading.tariff !== undefined) report.tariff = reading.tariff;
    const times = dateTimes(reading.meterTime ? Date.parse(reading.meterTime) : reading.receivedAt);
    Object.assign(report, times);
    for (const quantity of QUANTITIES) {
      const value = reading.values.get(quantity.obis);
      if (value !== undefined) setPath(report, quantity.reportPath, value.value);
    }
    if (input.convFactor !== undefined) report.conv_factor = input.convFactor;
    if (reading.mbus.length > 0) report.volume = reading.mbus.map(volumeEntry);
  }
  return {
    report,
    meter: meterObject(input.meter),
    system: systemObject(input.system, input.now),
  };
}
