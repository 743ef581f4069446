import { PHASES, signedCurrent, type Phase } from './phases.js';
import type { ObisValue, Reading } from './reading.js';

/**
 * The one typed meter view of a Reading (docs/architecture.md#meter-view): the instantaneous
 * quantities a consumer serves, in W, var, VA, V, A, Hz and as a ratio, total and per phase, each
 * signed by one rule. The Modbus meter profiles, the Shelly and HomeWizard personalities, the export
 * limiter and `/metrics` read it instead of translating OBIS values themselves.
 *
 * Rules (OBIS C.D.E of IEC 62056-61, values in the canonical units of ./units.ts):
 * - Active power `w`, import positive: the meter's own signed value when it sends one (C = 16, and
 *   36/56/76 per phase: "sum Li active power, import - export"), else import minus export
 *   (1.7.0 - 2.7.0, per phase 21/41/61.7.0 - 22/42/62.7.0), a missing direction counted as 0; null
 *   when the meter sends neither.
 * - Reactive power `var`: Q+ minus Q- (3.7.0 - 4.7.0, per phase 23/43/63.7.0 - 24/44/64.7.0), the
 *   same way.
 * - Apparent power `va` is a magnitude: |S+| + |S-| (9.7.0, 10.7.0; per phase 29/49/69.7.0,
 *   30/50/70.7.0), the direction a meter reports it in carries no sign.
 * - Current `a`: the phase current signed by the one rule of ./phases.ts (negative while the phase
 *   exports); its magnitude is `Math.abs(a)`.
 * - Voltage `v` (32/52/72.7.0), power factor `pf` (13.7.0, per phase 33/53/73.7.0) and frequency
 *   `hz` (14.7.0) as the meter sends them.
 *
 * A quantity the meter does not send is null, never invented. Powers are the kW (kvar, kVA) value
 * times 1000 in double precision, not rounded: each consumer rounds to its own protocol's
 * resolution, as it did on the OBIS values.
 */

export type Measured = number | null;

export interface PhaseView {
  readonly line: Phase['line'];
  /** Active power (W), import positive. */
  readonly w: Measured;
  /** Reactive power (var), Q+ positive. */
  readonly var: Measured;
  /** Apparent power (VA), a magnitude. */
  readonly va: Measured;
  /** Power factor (ratio). */
  readonly pf: Measured;
  /** Phase-to-neutral voltage (V). */
  readonly v: Measured;
  /** Current (A), negative while the phase exports. */
  readonly a: Measured;
}

export interface TotalView {
  /** Active power (W), import positive. */
  readonly w: Measured;
  /** Reactive power (var), Q+ positive. */
  readonly var: Measured;
  /** Apparent power (VA), a magnitude. */
  readonly va: Measured;
  /** Power factor (ratio). */
  readonly pf: Measured;
  /** Grid frequency (Hz). */
  readonly hz: Measured;
}

export interface MeterView {
  readonly total: TotalView;
  readonly phases: readonly [PhaseView, PhaseView, PhaseView];
}

/** OBIS C.D.E of the total: signed, import and export active power; Q+, Q-; S+, S-; PF; frequency. */
const TOTAL = {
  signedActive: '16.7.0',
  activeImport: '1.7.0',
  activeExport: '2.7.0',
  reactiveImport: '3.7.0',
  reactiveExport: '4.7.0',
  apparentImport: '9.7.0',
  apparentExport: '10.7.0',
  powerFactor: '13.7.0',
  frequency: '14.7.0',
} as const;

type Values = ReadonlyMap<string, ObisValue>;

/** Import minus export of a kW (kvar) pair, in W (var); undefined when neither is sent. */
function net(values: Values, importKey: string, exportKey: string): number | undefined {
  const imported = values.get(importKey)?.value;
  const exported = values.get(exportKey)?.value;
  if (imported === undefined && exported === undefined) return undefined;
  return ((imported ?? 0) - (exported ?? 0)) * 1000;
}

/** Active power in W by the one rule: the meter's signed value, else import minus export. */
function activeWatts(values: Values, signedKey: string, importKey: string, exportKey: string): Measured {
  const signed = values.get(signedKey)?.value;
  if (signed !== undefined) return signed * 1000;
  return net(values, importKey, exportKey) ?? null;
}

/** Apparent power in VA: the magnitudes of both directions' kVA registers summed; null when neither is sent. */
function apparentVoltAmperes(values: Values, importKey: string, exportKey: string): Measured {
  const imported = values.get(importKey)?.value;
  const exported = values.get(exportKey)?.value;
  if (imported === undefined && exported === undefined) return null;
  return (Math.abs(imported ?? 0) + Math.abs(exported ?? 0)) * 1000;
}

function phaseView(values: Values, phase: Phase): PhaseView {
  return {
    line: phase.line,
    w: activeWatts(values, phase.signedActive, phase.activeImport, phase.activeExport),
    var: net(values, phase.reactiveImport, phase.reactiveExport) ?? null,
    va: apparentVoltAmperes(values, phase.apparentImport, phase.apparentExport),
    pf: values.get(phase.powerFactor)?.value ?? null,
    v: values.get(phase.voltage)?.value ?? null,
    a: signedCurrent(values, phase) ?? null,
  };
}

/** The view of a set of OBIS values, computed afresh (meterView memoises it per Reading). */
export function viewOfValues(values: Values): MeterView {
  return {
    total: {
      w: activeWatts(values, TOTAL.signedActive, TOTAL.activeImport, TOTAL.activeExport),
      var: net(values, TOTAL.reactiveImport, TOTAL.reactiveExport) ?? null,
      va: apparentVoltAmperes(values, TOTAL.apparentImport, TOTAL.apparentExport),
      pf: values.get(TOTAL.powerFactor)?.value ?? null,
      hz: values.get(TOTAL.frequency)?.value ?? null,
    },
    phases: [phaseView(values, PHASES[0]!), phaseView(values, PHASES[1]!), phaseView(values, PHASES[2]!)],
  };
}

/** One view per Reading object: readings are immutable once the store holds them. */
const views = new WeakMap<Reading, MeterView>();

/** The meter view of a reading, computed on the first request and shared by every consumer after it. */
export function meterView(reading: Reading): MeterView {
  let view = views.get(reading);
  if (view === undefined) {
    view = viewOfValues(reading.values);
    views.set(reading, view);
  }
  return view;
}
