import type { MbusReading } from '../../reading/reading.js';
import type { DsmrObject, DsmrValue } from './telegram.js';
import { dsmrTimestamp } from './timestamp.js';
import { conversionOf, convert } from '../../reading/units.js';
import { isShortNumber } from './values.js';

/** The part of an object's OBIS reference the Reading needs: channel B and code C.D.E. */
export type ObjectReference = Pick<DsmrObject, 'channel' | 'code'>;

/** EN 13757-3 device types whose reading is a volume in m3: gas, warm water, water, cold water. */
const VOLUME_DEVICE_TYPES = new Set([3, 6, 7, 22]);

/** Preference among several reading objects of one channel (0: not a reading). */
function readingRank(code: string): number {
  return code === '24.2.1' ? 3 : code === '24.2.3' ? 2 : code === '24.3.0' ? 1 : 0;
}

/**
 * What MbusChannels.add takes an object of this code for: its device type or identifier (from
 * its first value's text), its reading (from all its values); undefined: it changes nothing.
 */
export function mbusCodeKind(code: string): 'device' | 'reading' | undefined {
  if (code === '24.1.0' || code === '96.1.0' || code === '96.1.1') return 'device';
  return readingRank(code) > 0 ? 'reading' : undefined;
}

/** Decoded text of an identifier object (its values), else its raw text; undefined when empty. */
export function identifierText(values: readonly DsmrValue[] | undefined): string | undefined {
  const value = values?.[0];
  if (value === undefined) return undefined;
  const text = (value.text ?? value.raw).trim();
  return text === '' ? undefined : text;
}

class ChannelDraft {
  deviceType: number | undefined = undefined;
  meterId: string | undefined = undefined;
  dateTime: string | undefined = undefined;
  value: number | undefined = undefined;
  unit: string | undefined = undefined;
  rank = 0;

  constructor(readonly bus: number) {}
}

/**
 * Collects the M-Bus channels 0-n (n >= 1) of a telegram (DSMR 5.0.2 §6.12): device type
 * 0-n:24.1.0, equipment identifier 0-n:96.1.0 (Belgium 0-n:96.1.1), reading 0-n:24.2.1 (Belgium
 * also 0-n:24.2.3; DSMR 2.2/3.0 0-n:24.3.0).
 */
export class MbusChannels {
  private readonly channels = new Map<number, ChannelDraft>();

  add({ code, channel }: ObjectReference, values: readonly DsmrValue[]): void {
    if (code === '24.1.0') {
      const type = values[0]?.raw ?? '';
      if (isShortNumber(type, 3)) this.draft(channel).deviceType = Number(type);
    } else if (code === '96.1.0' || code === '96.1.1') {
      const id = identifierText(values);
      if (id !== undefined) this.draft(channel).meterId ??= id;
    } else if (readingRank(code) > (this.channels.get(channel)?.rank ?? 0)) {
      applyReading(this.draft(channel), code, values);
    }
  }

  /** The channels by bus number. */
  readings(): MbusReading[] {
    const readings: MbusReading[] = [];
    for (const draft of this.channels.values()) readings.push(finishChannel(draft));
    // Insertion sort: a meter has one to four channels, usually sent in order already.
    for (let i = 1; i < readings.length; i++) {
      const reading = readings[i]!;
      let j = i - 1;
      for (; j >= 0 && readings[j]!.bus > reading.bus; j--) readings[j + 1] = readings[j]!;
      readings[j + 1] = reading;
    }
    return readings;
  }

  private draft(bus: number): ChannelDraft {
    let found = this.channels.get(bus);
    if (!found) this.channels.set(bus, (found = new ChannelDraft(bus)));
    return found;
  }
}

/**
 * DSMR 4/5: 0-n:24.2.1(timestamp)(value*unit); Belgian 0-n:24.2.3 likewise. DSMR 2.2/3.0:
 * 0-n:24.3.0(YYMMDDhhmmss)(status)(period)(count)(capture OBIS)(unit) CR LF (value).
 */
function applyReading(channel: ChannelDraft, code: string, values: readonly DsmrValue[]): void {
  let last = values.length - 1;
  while (last >= 0 && values[last]!.value === undefined) last--;
  if (last < 0 || values.length < 2) return;
  const measured = values[last]!;
  channel.rank = readingRank(code);
  channel.value = measured.value!;
  channel.unit = measured.unit ?? unitBefore(values[last - 1]);
  const first = values[0]!;
  channel.dateTime = first.timestamp ?? (code === '24.3.0' ? dsmrTimestamp(first.raw, true) : undefined);
}

/** The "(m3)" value before a DSMR 3 reading sent on its own line, which names its unit. */
function unitBefore(before: DsmrValue | undefined): string | undefined {
  if (before === undefined || before.value !== undefined || before.timestamp !== undefined) return undefined;
  return /^[A-Za-z][A-Za-z0-9]{0,5}$/.test(before.raw) ? before.raw : undefined;
}

/** Unit-less readings of gas and water meters are in m3 (DSMR 5.0.2 §6.12 "m3" for 0-n:24.2.1). */
function finishChannel(draft: ChannelDraft): MbusReading {
  const reading: MbusReading = { bus: draft.bus };
  if (draft.meterId !== undefined) reading.meterId = draft.meterId;
  if (draft.deviceType !== undefined) reading.deviceType = draft.deviceType;
  if (draft.dateTime !== undefined) reading.dateTime = draft.dateTime;
  if (draft.value === undefined) return reading;
  if (draft.unit !== undefined) {
    const conversion = conversionOf(draft.unit);
    reading.cumulative = convert(draft.value, conversion);
    reading.unit = conversion.unit;
  } else {
    reading.cumulative = draft.value;
    if (draft.deviceType !== undefined && VOLUME_DEVICE_TYPES.has(draft.deviceType)) reading.unit = 'm3';
  }
  return reading;
}
