import type { LivePayload } from '../../contracts/reading.js';

/** Net grid power, kW: import minus export (positive: drawn from the grid); undefined without either. */
export function netPower(payload: Pick<LivePayload, 'P_In' | 'P_Out'>): number | undefined {
  const imported = payload.P_In;
  const exported = payload.P_Out;
  if (typeof imported !== 'number' && typeof exported !== 'number') return undefined;
  return (typeof imported === 'number' ? imported : 0) - (typeof exported === 'number' ? exported : 0);
}
