import type { RegisterBlock } from '../register-space.js';
import type { GridValues } from './grid-values.js';
import { putFloat32, putInt16 } from './register-encodings.js';

/**
 * Chint DTSU666 three-phase meter, register table of the Chint "DTSU666 Three Phase Four Wire
 * Electronic Energy Meter" user manual (communication chapter). Everything is a holding register
 * (FC 03); the measurements are IEEE 754 floats, high word first, in the manual's fixed
 * multiples of the unit:
 *
 *   0x2000 Uab, 0x2002 Ubc, 0x2004 Uca, 0x2006 Ua, 0x2008 Ub, 0x200A Uc  x 0.1 V
 *   0x200C Ia, 0x200E Ib, 0x2010 Ic                                      x 0.001 A
 *   0x2012 Pt, 0x2014 Pa, 0x2016 Pb, 0x2018 Pc                           x 0.1 W
 *   0x201A Qt, 0x201C Qa, 0x201E Qb, 0x2020 Qc                           x 0.1 var
 *   0x2022 St, 0x2024 Sa, 0x2026 Sb, 0x2028 Sc                           x 0.1 VA
 *   0x202A PFt, 0x202C PFa, 0x202E PFb, 0x2030 PFc                       x 0.001
 *   0x2044 Freq                                                          x 0.01 Hz
 *   0x401E ImpEp (import active energy), 0x4028 ExpEp (export)           kWh
 *
 * so 230.1 V reads 2301.0 and 1234 W reads 12340.0. Power is signed, + import (the meter's
 * forward direction with its input on the grid side), - export.
 *
 * Set-up words (16 bit): 0x0003 NET (0 = three-phase four-wire), 0x0006 IrAt and 0x0007 UrAt
 * (current and voltage transformer ratios: 1, the values above are primary values), 0x002D Addr
 * (the slave's unit id; 0 over TCP).
 *
 * No data (no meter yet, or stale): every float reads NaN, so the inverter sees a failed meter and
 * its export limiter falls back to its safe state.
 */

type Values = GridValues;

function times(value: number | undefined, factor: number): number | undefined {
  return value === undefined ? undefined : value * factor;
}

export const DTSU666_BLOCKS: ReadonlyArray<RegisterBlock<Values>> = [
  {
    table: 'holding',
    start: 0x0000,
    words: 0x0030,
    fill(values, target) {
      putInt16(target, 0x0003, 0);
      putInt16(target, 0x0006, 1);
      putInt16(target, 0x0007, 1);
      putInt16(target, 0x002d, values.line?.unitId ?? 0);
    },
  },
  {
    table: 'holding',
    start: 0x2000,
    words: 0x0052,
    fill(v, target) {
      const at = (address: number, value: number | undefined): void =>
        putFloat32(target, address - 0x2000, value);
      for (let k = 0; k < 3; k++) {
        at(0x2000 + 2 * k, undefined); // line-to-line voltages: not measured by the grid meter
        at(0x2006 + 2 * k, times(v.voltage[k], 10));
        at(0x200c + 2 * k, times(v.current[k], 1000));
        at(0x2014 + 2 * k, times(v.phasePower[k], 10));
        at(0x201c + 2 * k, times(v.phaseReactive[k], 10));
        at(0x2024 + 2 * k, undefined); // phase apparent power
        at(0x202c + 2 * k, undefined); // phase power factor
      }
      at(0x2012, times(v.power, 10));
      at(0x201a, times(v.reactive, 10));
      at(0x2022, times(v.apparent, 10));
      at(0x202a, times(v.powerFactor, 1000));
      at(0x2044, undefined); // frequency
    },
  },
  {
    table: 'holding',
    start: 0x401e,
    words: 0x0014,
    fill(v, target) {
      putFloat32(target, 0, v.importEnergy);
      for (let k = 1; k <= 3; k++) putFloat32(target, 2 * k, undefined); // per-phase import
      putFloat32(target, 0x4028 - 0x401e, v.exportEnergy);
      for (let k = 1; k <= 3; k++) putFloat32(target, 0x4028 - 0x401e + 2 * k, undefined); // per-phase export
    },
  },
];
