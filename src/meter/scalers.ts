import type { MeterScaler } from '../contracts/meters.js';
import { OBIS_CDE_PATTERN, SCALER_LIMITS } from '../contracts/values.js';
import type { ValidationIssue } from '../config/validation.js';
import type { ObisValue, Reading } from '../reading/reading.js';

/**
 * The device's meter scalers ("Reading Current Scaler Values" and "Custom Meter Scalers" of the
 * whatwatt Go documentation): a register's power-of-ten scaler, by OBIS `C.D.E`. The current scaler
 * is the one the meter sent with the value (DLMS/COSEM class 3 registers; here the SML list entries,
 * which carry the same `scaler`); a custom scaler replaces it: the value becomes
 * raw x 10^custom instead of raw x 10^detected. `C.D.255` applies to every E of C.D; an exact entry
 * wins over the wildcard. Values without a scaler from the meter (DSMR, IEC 62056-21 and Modbus send
 * decimal text or floats with their unit) are not scaled, as on the device ("DLMS only").
 * Applied after the parser and before the store (docs/architecture.md#meter-scalers).
 */
export type { MeterScaler };

/** The API schema's rule (../contracts/values.ts), so the settings file and the API agree. */
const OBIS_CDE = new RegExp(OBIS_CDE_PATTERN);

function obisProblem(obis: unknown): string | undefined {
  if (typeof obis === 'string' && OBIS_CDE.test(obis)) return undefined;
  return 'must be an OBIS C.D.E string such as "1.8.0": C and D 0..254, E 0..255 (255: every E)';
}

/** Every problem of `value` as a custom scaler list; empty when it is valid. */
export function scalerIssues(value: unknown): ValidationIssue[] {
  if (!Array.isArray(value))
    return [{ field: '', message: 'must be a JSON array of {obis, scaler}', value: typeof value }];
  const issues: ValidationIssue[] = [];
  if (value.length > SCALER_LIMITS.entries)
    issues.push({ field: '', message: `at most ${SCALER_LIMITS.entries} entries` });
  const seen = new Set<string>();
  value.slice(0, SCALER_LIMITS.entries).forEach((entry: unknown, index) => {
    const at = `[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      return issues.push({ field: at, message: 'must be an object {obis, scaler}' });
    const { obis, scaler, ...rest } = entry as Record<string, unknown>;
    for (const key of Object.keys(rest).slice(0, 4))
      issues.push({ field: `${at}.${key.slice(0, 32)}`, message: 'unknown field' });
    const problem = obisProblem(obis);
    if (problem) issues.push({ field: `${at}.obis`, message: problem, value: String(obis).slice(0, 32) });
    else if (seen.has(obis as string))
      issues.push({ field: `${at}.obis`, message: 'is listed twice', value: obis });
    else seen.add(obis as string);
    if (
      !Number.isInteger(scaler) ||
      (scaler as number) < SCALER_LIMITS.min ||
      (scaler as number) > SCALER_LIMITS.max
    )
      issues.push({
        field: `${at}.scaler`,
        message: `must be an integer ${SCALER_LIMITS.min}..${SCALER_LIMITS.max}`,
        value: typeof scaler === 'number' ? scaler : String(scaler).slice(0, 32),
      });
  });
  return issues;
}

/** The custom scaler of an OBIS `C.D.E` key: the exact entry, else `C.D.255`, else undefined. */
export function customScalerOf(key: string, custom: readonly MeterScaler[]): number | undefined {
  const exact = custom.find((entry) => entry.obis === key);
  if (exact) return exact.scaler;
  const wildcard = `${key.slice(0, key.lastIndexOf('.'))}.255`;
  return custom.find((entry) => entry.obis === wildcard)?.scaler;
}

/** value x 10^exponent, rounded to 15 significant digits (a double's decimal precision), so 15338.5557 / 10 is 1533.85557. */
function timesPowerOfTen(value: number, exponent: number): number {
  const scaled = exponent < 0 ? value / 10 ** -exponent : value * 10 ** exponent;
  return Number(scaled.toPrecision(15));
}

/** The reading with the custom scalers in place of the meter's; the same object when none applies. */
export function applyScalers(reading: Reading, custom: readonly MeterScaler[]): Reading {
  if (custom.length === 0 || !reading.scalers) return reading;
  let values: Map<string, ObisValue> | undefined;
  let scalers: Map<string, number> | undefined;
  for (const [key, detected] of reading.scalers) {
    const entry = reading.values.get(key);
    const scaler = customScalerOf(key, custom);
    if (!entry || scaler === undefined || scaler === detected) continue;
    values ??= new Map(reading.values);
    scalers ??= new Map(reading.scalers);
    values.set(key, { ...entry, value: timesPowerOfTen(entry.value, scaler - detected) });
    scalers.set(key, scaler);
  }
  return values && scalers ? { ...reading, values, scalers } : reading;
}

/** `/api/v1/meter/scalers/current`: the scaler in effect for each register that has one. */
export function currentScalers(reading: Reading | undefined): MeterScaler[] {
  return [...(reading?.scalers ?? [])].map(([obis, scaler]) => ({ obis, scaler }));
}

/** Whether two meter settings differ in `scalers` only (new scalers need no reopened link). */
export function onlyScalersChanged(before: { scalers: unknown }, after: { scalers: unknown }): boolean {
  const { scalers: _before, ...restBefore } = before;
  const { scalers: _after, ...restAfter } = after;
  return JSON.stringify(restBefore) === JSON.stringify(restAfter);
}
