/**
 * A household with a PV system, seeded so tests are deterministic: consumption follows a daily
 * curve (night base load, morning and evening peaks), PV produces around solar noon, the net power
 * flows per phase, voltages sit near 230 V and sag slightly under load. Energy registers integrate
 * the power exactly, so they only grow and agree with it.
 */

/** Small fast seeded PRNG (mulberry32); quality is plenty for a simulation. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface PhaseState {
  /** Net active power, kW: positive import, negative export. */
  netKw: number;
  volts: number;
  amps: number;
}

export interface HouseholdState {
  phases: [PhaseState, PhaseState, PhaseState];
  /** Tariff 1 (low: nights 23-07 and weekends, Dutch convention) or 2 (normal). */
  tariff: 1 | 2;
  /** kWh registers [t1, t2]. */
  importKwh: [number, number];
  exportKwh: [number, number];
  gasM3: number;
  /** Gas register as last captured (M-Bus devices report every 5 minutes). */
  gasCaptured: { m3: number; at: number };
  powerFailures: { short: number; long: number };
}

const PHASE_SHARE = [0.4, 0.35, 0.25] as const;

function gaussian(x: number, mean: number, width: number): number {
  return Math.exp(-((x - mean) ** 2) / (2 * width * width));
}

/** Consumption in kW at local hour h (0..24), without noise. */
export function consumptionCurve(hour: number): number {
  return (
    0.25 + 1.4 * gaussian(hour, 7.5, 1.0) + 0.6 * gaussian(hour, 12.5, 1.5) + 2.2 * gaussian(hour, 19.5, 1.6)
  );
}

/** PV output in kW at local hour h: a bell around 13:00 (solar noon with DST), zero at night. */
export function pvCurve(hour: number): number {
  if (hour < 6 || hour > 20) return 0;
  return 4.2 * gaussian(hour, 13, 2.4);
}

export function tariffAt(date: Date): 1 | 2 {
  const day = date.getDay();
  const hour = date.getHours();
  return day === 0 || day === 6 || hour >= 23 || hour < 7 ? 1 : 2;
}

export function initialState(random: () => number, now: number): HouseholdState {
  const base = 1000 + Math.floor(random() * 9000);
  return {
    phases: [0, 1, 2].map(() => ({ netKw: 0, volts: 230, amps: 0 })) as HouseholdState['phases'],
    tariff: tariffAt(new Date(now)),
    importKwh: [base + random(), base * 0.8 + random()],
    exportKwh: [base * 0.3 + random(), base * 0.45 + random()],
    gasM3: 2000 + random() * 1000,
    gasCaptured: { m3: 0, at: 0 },
    powerFailures: { short: Math.floor(random() * 10), long: Math.floor(random() * 3) },
  };
}

/**
 * Advances the household by `seconds` ending at `now`: new instantaneous values, and the energy of
 * the elapsed interval (power of this step x time) added to the registers of the current tariff.
 */
export function step(state: HouseholdState, random: () => number, now: number, seconds: number): void {
  const date = new Date(now);
  const hour = date.getHours() + date.getMinutes() / 60 + date.getSeconds() / 3600;
  const consumption = consumptionCurve(hour) * (0.85 + 0.3 * random());
  const pv = pvCurve(hour) * (0.7 + 0.3 * random());
  let importKw = 0;
  let exportKw = 0;
  state.phases.forEach((phase, i) => {
    const net = consumption * PHASE_SHARE[i]! - pv / 3;
    phase.netKw = Math.round(net * 1000) / 1000;
    phase.volts = Math.round((230 + 3 * (random() - 0.5) - 2 * net) * 10) / 10;
    phase.amps = Math.abs(phase.netKw * 1000) / phase.volts;
    if (phase.netKw > 0) importKw += phase.netKw;
    else exportKw -= phase.netKw;
  });
  state.tariff = tariffAt(date);
  const slot = state.tariff - 1;
  // The meter's total registers follow the net flow of all phases together (DSMR 5.0.2 §6.12).
  const net = importKw - exportKw;
  if (net > 0) state.importKwh[slot] = state.importKwh[slot]! + (net * seconds) / 3600;
  else state.exportKwh[slot] = state.exportKwh[slot]! + (-net * seconds) / 3600;
  // Gas: heating and hot water, more in the morning and evening.
  state.gasM3 += ((0.05 + 0.4 * gaussian(hour, 7, 1.5) + 0.3 * gaussian(hour, 20, 2)) * seconds) / 3600;
  const fiveMinutes = Math.floor(now / 300_000) * 300_000;
  if (state.gasCaptured.at !== fiveMinutes) state.gasCaptured = { m3: state.gasM3, at: fiveMinutes };
}
