import type { MbusReading } from '../../reading/reading.js';
import { toCanonical } from '../../reading/units.js';
import type { DsmrObject, DsmrValue } from './telegram.js';
import { dsmrTimestamp } from './timestamp.js';

/** What the Reading takes from a data object (see ./to-reading.ts). */
export type ObjectValues = Pick<DsmrObject, 'channel' | 'code' | 'values'>;

/** EN 13757-3 device types whose reading is a volume in m3: gas, warm water, water, cold water. */
const VOLUME_DEVICE_TYPES = new Set([3, 6, 7, 22]);

/** Preference among several reading objects of one channel. */
const READING_RANK: Readonly<Record<string, number>> = { '24.2.1': 3, '24.2.3': 2, '24.3.0': 1 };

/** Decoded text of an identifier object, else its raw text; undefined when empty. */
export function identifierText(object: ObjectValues | undefined): string | undefined {
  const value = object?.values[0];
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

  add(object: ObjectValues): void {
    const { code, channel } = object;
    if (code === '24.1.0') {
      const type = object.values[0]?.raw ?? '';
      if (/^\d{1,3}$/.test(type)) this.draft(channel).deviceType = Number(type);
    } else if (code === '96.1.0' || code === '96.1.1') {
      const id = identifierText(object);
      if (id !== undefined) this.draft(channel).meterId ??= id;
    } else if ((READING_RANK[code] ?? 0) > (this.channels.get(channel)?.rank ?? 0)) {
      applyReading(this.draft(channel), object);
    }
  }

  readings(): MbusReading[] {
    if (this.channels.size === 0) return [];
    return [...this.channels.values()].sort((x, y) => x.bus - y.bus).map(finishChannel);
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
function applyReading(channel: ChannelDraft, object: ObjectValues): void {
  const measured = object.values.findLast((v) => v.value !== undefined);
  if (measured === undefined || object.values.length < 2) return;
  channel.rank = READING_RANK[object.code]!;
  channel.value = measured.value!;
  channel.unit = measured.unit ?? unitBefore(object.values, measured);
  const first = object.values[0]!;
  channel.dateTime =
    first.timestamp ?? (object.code === '24.3.0' ? dsmrTimestamp(first.raw, true) : undefined);
}

/** The "(m3)" value that names the unit of a DSMR 3 reading sent on its own line. */
function unitBefore(values: readonly DsmrValue[], measured: DsmrValue): string | undefined {
  const before = values[values.indexOf(measured) - 1];
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
    const canonical = toCanonical(draft.value, draft.unit);
    reading.cumulative = canonical.value;
    reading.unit = canonical.unit;
  } else {
    reading.cumulative = draft.value;
    if (draft.deviceType !== undefined && VOLUME_DEVICE_TYPES.has(draft.deviceType)) reading.unit = 'm3';
  }
  return reading;
}
