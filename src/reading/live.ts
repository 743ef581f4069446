import { QUANTITIES } from './quantities.js';
import type { Reading } from './reading.js';
import type { LivePayload, LiveVolume } from '../contracts/reading.js';
import { liveDateAndTime } from './time-format.js';

/**
 * The flat live payload of one `event: live` (docs/architecture.md#live-payload): table quantities by their
 * live key, `T` tariff, `Vol` M-Bus channels, `Date`/`Time` local, `Uptime` in hours. Absent values stay
 * absent.
 */
export function buildLivePayload(reading: Reading, bootTime: number): LivePayload {
  const values: Record<string, number | LiveVolume[]> = {};
  for (const quantity of QUANTITIES) {
    if (quantity.live === undefined) continue;
    const value = reading.values.get(quantity.obis);
    if (value !== undefined) values[quantity.live] = value.value;
  }
  if (reading.tariff !== undefined) values.T = reading.tariff;
  if (reading.mbus.length > 0) {
    values.Vol = reading.mbus.map((channel) => {
      const entry: LiveVolume = { Bus: channel.bus };
      if (channel.meterId !== undefined) entry.M_ID = channel.meterId;
      if (channel.dateTime !== undefined) entry.DT = channel.dateTime;
      if (channel.cumulative !== undefined) entry.Cum = channel.cumulative;
      return entry;
    });
  }
  const uptime = Math.round(((reading.receivedAt - bootTime) / 3_600_000) * 1000) / 1000;
  return Object.assign(values, liveDateAndTime(reading.receivedAt), { Uptime: uptime });
}
