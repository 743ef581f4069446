import type { DsmrObject, DsmrValue } from './telegram.js';

/**
 * Profile generic buffers in a telegram (DSMR 5.0.2 §6.12; Belgian eMUCS P1 1.7.1 uses the same form):
 *
 *   (n)(capture object 1)...(capture object k)(timestamp)(value 1)...(value k)  x n
 *
 * 1-0:99.97.0 power failure event log: k = 1 (0-0:96.7.19 duration); 0-0:98.1.0 Belgian 13-month
 * maximum demand: k = 2 (1-0:1.6.0 capture time and value); 1-0:99.1.0 load profile: k as listed.
 * Real meters send "()" or "(0)()" for an empty log and "()" for unset entries, which read as
 * entries without timestamp or value.
 */
export interface DsmrProfileEntry {
  /** ISO 8601 time of the entry (end of the failure, start of the billing month). */
  timestamp?: string;
  /** The k captured values of the entry (a failure duration; a peak's time and value). */
  values: DsmrValue[];
}

export interface DsmrProfile {
  /** Number of entries the meter states. */
  count: number;
  /** OBIS references of the captured objects ('' where the meter left them empty). */
  captured: string[];
  entries: DsmrProfileEntry[];
}

const OBIS_REFERENCE = /^\d{1,3}-\d{1,3}:\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const COUNT = /^\d{1,4}$/;

/**
 * Reads an object as a profile buffer; undefined when its first value is not an entry count
 * (E.ON Hungary sends 0-0:98.1.0 as one plain billing row starting with a timestamp).
 */
export function readDsmrProfile(object: DsmrObject): DsmrProfile | undefined {
  const [first, ...rest] = object.values;
  if (first === undefined || first.raw === '') return { count: 0, captured: [], entries: [] };
  if (!COUNT.test(first.raw)) return undefined;
  const count = Number(first.raw);
  const captured: string[] = [];
  let at = 0;
  while (at < rest.length && OBIS_REFERENCE.test(rest[at]!.raw)) captured.push(rest[at++]!.raw);
  if (captured.length === 0 && at < rest.length && rest[at]!.raw === '') captured.push(rest[at++]!.raw);
  const width = 1 + Math.max(captured.length, 1);
  const entries: DsmrProfileEntry[] = [];
  for (let n = 0; n < count && at + width <= rest.length; n++, at += width) {
    const [stamp, ...values] = rest.slice(at, at + width) as [DsmrValue, ...DsmrValue[]];
    const entry: DsmrProfileEntry = { values };
    if (stamp.timestamp !== undefined) entry.timestamp = stamp.timestamp;
    entries.push(entry);
  }
  return { count, captured, entries };
}
