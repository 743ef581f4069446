import { meterView } from './meter-view.js';
import { PHASES } from './phases.js';
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

const ALIASES: ReadonlyArray<[string, string]> = [
  ['energy.in', '1.8.0'],
  ['energy.out', '2.8.0'],
  ['power.in', '1.7.0'],
  ['power.out', '2.7.0'],
];

/**
 * The MQTT template variables (docs/architecture.md#mqtt-template): every table quantity as `C_D_E` (null
 * when the meter did not send it), aliases, signed currents, tariff, conv_factor, timestamp, meter.*, sys.*,
 * wifi.*, vol[n].*. Variables that are not in this map stay literal in the rendered output.
 */
export function buildTemplateVariables(input: TemplateInput): Map<string, TemplateValue> {
  const { reading } = input;
  const vars = new Map<string, TemplateValue>();
  const value = (obis: string): number | null => reading?.values.get(obis)?.value ?? null;
  for (const quantity of QUANTITIES) vars.set(templateName(quantity.obis), value(quantity.obis));
  for (const [alias, obis] of ALIASES) vars.set(alias, value(obis));
  // `s31_7_0`: the signed current of the meter view, as Modbus `current.lN` (phases.ts's one rule).
  const view = reading ? meterView(reading) : undefined;
  PHASES.forEach((phase, index) =>
    vars.set(`s${templateName(phase.current)}`, view ? view.phases[index]!.a : null),
  );
  vars.set('tariff', reading?.tariff ?? null);
  vars.set('96_14_0', reading?.tariff ?? null);
  vars.set('conv_factor', input.convFactor ?? null);
  vars.set('timestamp', reading ? Math.floor(reading.receivedAt / 1000) : null);

  const { meter, system } = input;
  // Device template documentation: numeric variables the meter did not send are null, text
  // variables are "" (they stand inside quotes in a JSON template).
  const text = (value: string | undefined): string => value ?? '';
  vars.set('meter.status', meter.status);
  vars.set('meter.interface', meter.interface);
  vars.set('meter.protocol', text(meter.protocol));
  vars.set('meter.id', text(meter.identity.id));
  vars.set('meter.model', text(meter.identity.model));
  vars.set('meter.vendor', text(meter.identity.vendor));
  vars.set('meter.prefix', text(meter.identity.prefix));
  // The device's meter.type: the logical device name, else the model text (as /api/v1/system).
  vars.set('meter.type', text(meter.identity.logicalName ?? meter.identity.model));
  vars.set('meter.protocol_version', text(meter.identity.protocolVersion));
  vars.set('meter.protocol_ver', text(meter.identity.protocolVersion));
  vars.set('meter.logical_name', text(meter.identity.logicalName));
  // "Report date time in local time", ISO 8601: the meter's own timestamp when it sends one.
  vars.set('meter.date_time', reading ? (reading.meterTime ?? dateTimes(reading.receivedAt).date_time) : '');
  vars.set('plug.interface', meter.interface);
  // The device's supply voltages; a Pi has no such measurement (numeric, so null).
  for (const supply of ['usb', 'p1', 'mbus']) vars.set(`plug.voltage.${supply}`, null);

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
  for (const [name, linkValue] of linkVariables(input.wifi)) vars.set(name, linkValue);

  reading?.mbus.forEach((channel, n) => {
    vars.set(`vol[${n}].bus`, channel.bus);
    vars.set(`vol[${n}].meter_id`, channel.meterId ?? null);
    vars.set(`vol[${n}].date_time`, channel.dateTime ?? null);
    vars.set(`vol[${n}].cumulative`, channel.cumulative ?? null);
  });
  return vars;
}

/**
 * The device's network variables (wifi.mode, wifi.sta.*, eth.*) from the link facts: a link with
 * an SSID is the Wi-Fi station, any other address is the wired interface.
 */
function linkVariables(wifi: Readonly<Record<string, string | number>>): Array<[string, TemplateValue]> {
  const ssid = typeof wifi.ssid === 'string' ? wifi.ssid : '';
  const ip = typeof wifi.ip === 'string' ? wifi.ip : '';
  const onWifi = ssid !== '';
  return [
    ['wifi.mode', onWifi ? 'sta' : 'off'],
    ['wifi.sta.status', onWifi ? 'ok' : 'disconnected'],
    ['wifi.sta.ssid', ssid],
    ['wifi.sta.rssi', onWifi && typeof wifi.rssi === 'number' ? wifi.rssi : null],
    ['wifi.sta.ip', onWifi ? ip : ''],
    ['eth.state', !onWifi && ip !== '' ? 'up' : 'down'],
    ['eth.ip', onWifi ? '' : ip],
  ];
}
