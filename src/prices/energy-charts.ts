import { addSlot, MAX_QUARTERS, refused, sortedQuarters, type SpotAnswer } from './spot.js';

/**
 * Energy-Charts (Fraunhofer ISE) day-ahead prices, `GET /price?bzn=<zone>&start=..&end=..` of its
 * public API (api.energy-charts.info, OpenAPI description there): a JSON object with
 * `unix_seconds` (slot starts) and `price` (one per start, null where there is none) as arrays of
 * equal length, and `unit` ("EUR / MWh"). A slot lasts until the next start; the last one as long
 * as the one before it (15 minutes since 2025-10-01, 60 minutes before).
 */

export const ENERGY_CHARTS_UNIT = 'EUR / MWh';

export function parseEnergyCharts(body: string): SpotAnswer {
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    return refused('Energy-Charts answer is not JSON');
  }
  if (typeof answer !== 'object' || answer === null) return refused('Energy-Charts answer is not an object');
  const { unix_seconds: times, price: prices, unit } = answer as Record<string, unknown>;
  if (!Array.isArray(times) || !Array.isArray(prices))
    return refused('Energy-Charts answer without unix_seconds and price');
  if (times.length !== prices.length)
    return refused(`Energy-Charts answer with ${times.length} times and ${prices.length} prices`);
  if (unit !== ENERGY_CHARTS_UNIT)
    return refused(`Energy-Charts unit ${JSON.stringify(unit)}, expected "${ENERGY_CHARTS_UNIT}"`);
  if (times.length > MAX_QUARTERS)
    return refused(`Energy-Charts answer with more than ${MAX_QUARTERS} slots`);
  if (times.length === 0) return { kind: 'not_published', reason: 'Energy-Charts answer without slots' };
  const quarters = new Map<number, number>();
  // The resolution is the shortest distance of two starts (a missing slot must not lengthen the one before).
  let step = 60;
  for (let i = 0; i < times.length; i += 1) {
    const t = times[i];
    if (typeof t !== 'number' || !Number.isInteger(t) || t % 900 !== 0)
      return refused(`Energy-Charts slot ${i}: start ${String(t)} is not a quarter hour`);
    if (i > 0 && t <= (times[i - 1] as number)) return refused('Energy-Charts slots out of order');
    if (i > 0) step = Math.min(step, (t - (times[i - 1] as number)) / 60);
  }
  if (times.length === 1) step = 15;
  for (let i = 0; i < times.length; i += 1) {
    const t = times[i] as number;
    const price = prices[i];
    if (price === null) continue;
    if (typeof price !== 'number' || !Number.isFinite(price))
      return refused(`Energy-Charts slot ${i}: price ${JSON.stringify(price)}`);
    addSlot(quarters, t * 1000, step, price);
  }
  if (quarters.size === 0) return { kind: 'not_published', reason: 'Energy-Charts answer without prices' };
  return { kind: 'prices', currency: 'EUR', quarters: sortedQuarters(quarters) };
}
