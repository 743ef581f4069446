import { crc16Arc } from '../../checksum/crc16.js';
import type { HouseholdState } from './model.js';

/**
 * DSMR 5.0.2 P1 telegram text of a simulated meter. Formats per DSMR 5.0.2 §6.12 (e.g. energy
 * F9(3,3) "000123.456*kWh", power F5(3,3) "01.234*kW", voltage F4(1,1) "230.1*V", current F3(0,0)
 * "002*A", timestamps YYMMDDhhmmssX with X = S in summer time and W in winter time) and a CRC-16/ARC
 * over '/' through '!' written as 4 upper-case hex digits (§6.2).
 */
const EQUIPMENT_ID = 'E0099000000001234';
const GAS_ID = 'G0099000000005678';

function hexAscii(text: string): string {
  return Buffer.from(text, 'ascii').toString('hex').toUpperCase();
}

function fixed(value: number, integerDigits: number, decimals: number): string {
  const text = Math.abs(value).toFixed(decimals);
  const [int = '0', frac] = text.split('.');
  const padded = int.padStart(integerDigits, '0');
  return frac === undefined ? padded : `${padded}.${frac}`;
}

/** Last Sunday of a month at 01:00 UTC: EU summer time starts (March) and ends (October) then. */
function lastSundayOneUtc(year: number, month: number): number {
  const lastDay = new Date(Date.UTC(year, month + 1, 0));
  return Date.UTC(year, month, lastDay.getUTCDate() - lastDay.getUTCDay(), 1);
}

/**
 * DSMR timestamps are Dutch local time, CET (W) or CEST (S), whatever zone the host runs in
 * (DSMR 5.0.2 §6.4 "YYMMDDhhmmssX"; EU summer time from the last Sunday of March to the last
 * Sunday of October, switching at 01:00 UTC).
 */
export function dsmrTimestamp(ms: number): string {
  const year = new Date(ms).getUTCFullYear();
  const summer = ms >= lastSundayOneUtc(year, 2) && ms < lastSundayOneUtc(year, 9);
  const local = new Date(ms + (summer ? 2 : 1) * 3_600_000);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    two(local.getUTCFullYear() % 100) +
    two(local.getUTCMonth() + 1) +
    two(local.getUTCDate()) +
    two(local.getUTCHours()) +
    two(local.getUTCMinutes()) +
    two(local.getUTCSeconds()) +
    (summer ? 'S' : 'W')
  );
}

export function buildTelegram(state: HouseholdState, now: number): Buffer {
  const [l1, l2, l3] = state.phases;
  const phases = [l1, l2, l3];
  const importKw = phases.reduce((sum, p) => sum + Math.max(p.netKw, 0), 0);
  const exportKw = phases.reduce((sum, p) => sum + Math.max(-p.netKw, 0), 0);
  const net = importKw - exportKw;
  const lines = [
    '/MGW5\\2SIMULATOR-1',
    '',
    '1-3:0.2.8(50)',
    `0-0:1.0.0(${dsmrTimestamp(now)})`,
    `0-0:96.1.1(${hexAscii(EQUIPMENT_ID)})`,
    `1-0:1.8.1(${fixed(state.importKwh[0], 6, 3)}*kWh)`,
    `1-0:1.8.2(${fixed(state.importKwh[1], 6, 3)}*kWh)`,
    `1-0:2.8.1(${fixed(state.exportKwh[0], 6, 3)}*kWh)`,
    `1-0:2.8.2(${fixed(state.exportKwh[1], 6, 3)}*kWh)`,
    `0-0:96.14.0(${fixed(state.tariff, 4, 0)})`,
    `1-0:1.7.0(${fixed(Math.max(net, 0), 2, 3)}*kW)`,
    `1-0:2.7.0(${fixed(Math.max(-net, 0), 2, 3)}*kW)`,
    `0-0:96.7.21(${fixed(state.powerFailures.short, 5, 0)})`,
    `0-0:96.7.9(${fixed(state.powerFailures.long, 5, 0)})`,
    '1-0:99.97.0(0)(0-0:96.7.19)',
    '1-0:32.32.0(00000)',
    '1-0:52.32.0(00000)',
    '1-0:72.32.0(00000)',
    '1-0:32.36.0(00000)',
    '1-0:52.36.0(00000)',
    '1-0:72.36.0(00000)',
    '0-0:96.13.0()',
    ...phases.map((p, i) => `1-0:${32 + 20 * i}.7.0(${fixed(p.volts, 3, 1)}*V)`),
    ...phases.map((p, i) => `1-0:${31 + 20 * i}.7.0(${fixed(Math.round(p.amps), 3, 0)}*A)`),
    ...phases.map((p, i) => `1-0:${21 + 20 * i}.7.0(${fixed(Math.max(p.netKw, 0), 2, 3)}*kW)`),
    ...phases.map((p, i) => `1-0:${22 + 20 * i}.7.0(${fixed(Math.max(-p.netKw, 0), 2, 3)}*kW)`),
    '0-1:24.1.0(003)',
    `0-1:96.1.0(${hexAscii(GAS_ID)})`,
    `0-1:24.2.1(${dsmrTimestamp(state.gasCaptured.at)})(${fixed(state.gasCaptured.m3, 5, 3)}*m3)`,
    '!',
  ];
  const body = Buffer.from(lines.join('\r\n'), 'latin1');
  const crc = crc16Arc(body).toString(16).toUpperCase().padStart(4, '0');
  return Buffer.concat([body, Buffer.from(`${crc}\r\n`, 'latin1')]);
}
