import { QUANTITIES, templateName } from './quantities.js';
import type { Reading } from './reading.js';
import type { MeterState, SystemFacts } from './meter-state.js';
import { dateTimes } from './time-format.js';

/** A template variable: numbers render as JSON numbers, strings verbatim, null as `null`. */
export type TemplateValue = number | string | null;

export interface TemplateInput {
  reading: Reading | undefined;
  meter: MeterState;
  system: SystemFacts;
  /** system.name setting. */
  systemName: string;
  convFactor: number | undefined;
  /** Wi-Fi facts from the Wi-Fi backend (ssid, ip, rssi, ...), exposed as wifi.<key>. */
  wifi: Readonly<Record<string, string | number>>;
  now: number;
}

/** Signed current of a phase: negative while the phase exports (DESIGN §4 `s31_7_0`). */
const SIGNED_CURRENTS: ReadonlyArray<[string, string, string]> = [
  ['31.7.0', '21.7.0', '22.7.0'],
  ['51.7.0', '41.7.0', '42.7.0'],
  ['71.7.0', '61.7.0', '62.7.0'],
];

const ALIASES: ReadonlyArray<[string, string]> = [
  ['energy.in', '1.8.0'],
  ['energy.out', '2.8.0'],
  ['power.in', '1.7.0'],
  ['power.out', '2.7.0'],
];

/**
 * The MQTT template variables (DESIGN §4): every table quantity as `C_D_E` (null when the meter did
 * not send it), aliases, signed currents, tariff, conv_factor, timestamp, meter.*, sys.*, wifi.*,
 * vol[n].*. Variables that are not in this map stay literal in the rendered output.
 */
export function buildTemplateVariables(input: TemplateInput): Map<string, TemplateValue> {
  const { reading } = input;
  const vars = new Map<string, TemplateValue>();
  const value = (obis: string): number | null => reading?.values.get(obis)?.value ?? null;
  for (const quantity of QUANTITIES) vars.set(templateName(quantity.obis), value(quantity.obis));
  for (const [alias, obis] of ALIASES) vars.set(alias, value(obis));
  for (const [current, positive, negative] of SIGNED_CURRENTS) {
    const amps = value(current);
    const exporting = (value(negative) ?? 0) > (value(positive) ?? 0);
    vars.set(`s${templateName(current)}`, amps === null ? null : exporting ? -amps : amps);
  }
  vars.set('tariff', reading?.tariff ?? null);
  vars.set('96_14_0', reading?.tariff ?? null);
  vars.set('conv_factor', input.convFactor ?? null);
  vars.set('timestamp', reading ? Math.floor(reading.receivedAt / 1000) : null);

  const { meter, system } = input;
  vars.set('meter.status', meter.status);
  vars.set('meter.interface', meter.interface);
  vars.set('meter.protocol', meter.protocol ?? null);
  vars.set('meter.id', meter.identity.id ?? null);
  vars.set('meter.model', meter.identity.model ?? null);
  vars.set('meter.vendor', meter.identity.vendor ?? null);
  vars.set('meter.prefix', meter.identity.prefix ?? null);
  vars.set('meter.protocol_version', meter.identity.protocolVersion ?? null);
  vars.set('meter.logical_name', meter.identity.logicalName ?? null);

  vars.set('sys.id', system.id);
  vars.set('sys.name', input.systemName);
  vars.set('sys.model', system.model);
  vars.set('sys.firmware', system.firmware);
  vars.set('sys.boot_id', system.bootId);
  vars.set('sys.time_since_boot', Math.round((input.now - system.bootTime) / 1000));
  const times = dateTimes(input.now);
  vars.set('sys.date_time', times.date_time);
  vars.set('sys.date_time_local', times.date_time_local);
  vars.set('sys.date_time_utc', times.date_time_utc);

  for (const [key, wifiValue] of Object.entries(input.wifi)) vars.set(`wifi.${key}`, wifiValue);

  reading?.mbus.forEach((channel, n) => {
    vars.set(`vol[${n}].bus`, channel.bus);
    vars.set(`vol[${n}].meter_id`, channel.meterId ?? null);
    vars.set(`vol[${n}].date_time`, channel.dateTime ?? null);
    vars.set(`vol[${n}].cumulative`, channel.cumulative ?? null);
  });
  return vars;
}
