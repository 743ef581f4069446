import type { ObisValue } from './reading.js';

/**
 * The three phases and the OBIS codes (C.D.E, IEC 62056-61 / DSMR 5.0.2 §6.12) of their
 * quantities: current (31/51/71.7.0), voltage (32/52/72.7.0), active power import and export
 * (21/41/61.7.0, 22/42/62.7.0), reactive power Q+ and Q- (23/43/63.7.0, 24/44/64.7.0), signed
 * active power import - export (36/56/76.7.0), apparent power S+ and S- (29/49/69.7.0,
 * 30/50/70.7.0) and power factor (33/53/73.7.0).
 */
export interface Phase {
  line: 'l1' | 'l2' | 'l3';
  current: string;
  voltage: string;
  activeImport: string;
  activeExport: string;
  reactiveImport: string;
  reactiveExport: string;
  signedActive: string;
  apparentImport: string;
  apparentExport: string;
  powerFactor: string;
}

export const PHASES: readonly Phase[] = [1, 2, 3].map((n): Phase => {
  const base = 20 * n;
  return {
    line: `l${n}` as Phase['line'],
    current: `${base + 11}.7.0`,
    voltage: `${base + 12}.7.0`,
    activeImport: `${base + 1}.7.0`,
    activeExport: `${base + 2}.7.0`,
    reactiveImport: `${base + 3}.7.0`,
    reactiveExport: `${base + 4}.7.0`,
    signedActive: `${base + 16}.7.0`,
    apparentImport: `${base + 9}.7.0`,
    apparentExport: `${base + 10}.7.0`,
    powerFactor: `${base + 13}.7.0`,
  };
});

/**
 * The one signed-current rule (the meter view's `a`, Modbus register id `current.lN`, MQTT template
 * `s31_7_0`): the magnitude of the phase current, negative while the phase exports, i.e. while the
 * meter's signed active power of the phase (36/56/76.7.0) is negative when it sends one, else while
 * its export power exceeds its import power: the sign of the phase's active power in the meter
 * view (./meter-view.ts). A meter that sends the current already signed gives the same result
 * (only the magnitude is used); undefined when the meter sent no current for the phase.
 */
export function signedCurrent(values: ReadonlyMap<string, ObisValue>, phase: Phase): number | undefined {
  const current = values.get(phase.current)?.value;
  if (current === undefined) return undefined;
  const signed = values.get(phase.signedActive)?.value;
  const exporting =
    signed !== undefined
      ? signed < 0
      : (values.get(phase.activeExport)?.value ?? 0) > (values.get(phase.activeImport)?.value ?? 0);
  return exporting ? -Math.abs(current) : Math.abs(current);
}
