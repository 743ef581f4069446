import type { RegisterBlock } from '../register-block.js';
import { floatBlock, floatPoint, type FloatPoint, type PollRange } from './float-points.js';
import type { GridValues, SlaveLine } from './grid-values.js';
import { phaseBlock } from './quantities.js';
import { putInt16 } from '../register-encodings.js';

/**
 * Chint DTSU666 three-phase meter, register table of the Chint "DTSU666 / DSSU666 three phase
 * electronic energy meter" user manual (§5.3 "Communication function", Table 11 "ModBus protocol
 * address table"); the same addresses and multiples as volkszaehler/mbmd's meter definition
 * (meters/rs485/dtsu666.go) and the DTSU666 emulators that cite the manual. Everything is a
 * holding register (FC 03); the measurements are IEEE 754 floats, high word first, in the
 * manual's fixed multiples of the unit:
 *
 *   0x2000 Uab, 0x2002 Ubc, 0x2004 Uca, 0x2006 Ua, 0x2008 Ub, 0x200A Uc  x 0.1 V
 *   0x200C Ia, 0x200E Ib, 0x2010 Ic                                      x 0.001 A
 *   0x2012 Pt, 0x2014 Pa, 0x2016 Pb, 0x2018 Pc                           x 0.1 W
 *   0x201A Qt, 0x201C Qa, 0x201E Qb, 0x2020 Qc                           x 0.1 var
 *   0x2022 St, 0x2024 Sa, 0x2026 Sb, 0x2028 Sc                           x 0.1 VA
 *   0x202A PFt, 0x202C PFa, 0x202E PFb, 0x2030 PFc                       x 0.001
 *   0x2044 Freq                                                          x 0.01 Hz
 *   0x101E ImpEp, 0x1020..0x1024 ImpEpA..C, 0x1026 NetImpEp              kWh
 *   0x1028 ExpEp, 0x102A..0x102E ExpEpA..C, 0x1030 NetExpEp              kWh
 *
 * so 230.1 V reads 2301.0 and 1234 W reads 12340.0. Power is signed, + import (the meter's
 * forward direction with its input on the grid side), - export. The energy block is served from
 * 0x1000 (its registers below 0x101E, which the table does not list, read NaN); a Growatt reads
 * it as `03 101E x12`.
 *
 * Set-up words (16 bit): 0x0003 NET (0 = three-phase four-wire), 0x0006 IrAt (current
 * transformer ratio, 1) and 0x0007 UrAt (voltage transformer ratio in 0.1: 10 = 1.0; the values
 * above are primary values), 0x002C protocol (1 DL/T645, 2 n.2, 3 n.1, 4 E.1, 5 o.1), 0x002D bAud
 * (0 1200, 1 2400, 2 4800, 3 9600, 4 19200), 0x002E Addr (the slave's unit id). Over TCP, which
 * has no serial line, the three line words read 0.
 *
 * No data (no meter yet, or stale): every measurement reads NaN, so the inverter sees a failed
 * meter and its export limiter falls back to its safe state; the energy counters keep their last
 * valid value. The same points decode a real DTSU666 read by the Modbus meter source.
 */

type Values = GridValues;

const at = floatPoint;

function measurementPoints(): FloatPoint[] {
  const points: FloatPoint[] = [];
  const [voltage, current, power, reactive] = phaseBlock();
  for (let k = 0; k < 3; k++) {
    points.push(
      at(0x2000 + 2 * k), // line-to-line voltages: not measured by the grid meter
      at(0x2006 + 2 * k, voltage[k], 10),
      at(0x200c + 2 * k, current[k], 1000),
      at(0x2014 + 2 * k, power[k], 10),
      at(0x201c + 2 * k, reactive[k], 10),
      at(0x2024 + 2 * k), // phase apparent power
      at(0x202c + 2 * k), // phase power factor
    );
  }
  points.push(
    at(0x2012, 'power', 10),
    at(0x201a, 'reactive', 10),
    at(0x2022, 'apparent', 10),
    at(0x202a, 'powerFactor', 1000),
    at(0x2044, 'frequency', 100),
  );
  return points;
}

function energyPoints(): FloatPoint[] {
  const points: FloatPoint[] = [];
  for (let address = 0x1000; address < 0x101e; address += 2) points.push(at(address));
  points.push(at(0x101e, 'importEnergy'), at(0x1028, 'exportEnergy'));
  for (let k = 1; k <= 4; k++) points.push(at(0x101e + 2 * k), at(0x1028 + 2 * k)); // per phase, net
  return points;
}

export const DTSU666_POINTS: readonly FloatPoint[] = [...measurementPoints(), ...energyPoints()];

/** The reads a meter source makes of a DTSU666: the measurements, then import and export kWh. */
export const DTSU666_POLLS: readonly PollRange[] = [
  { table: 'holding', start: 0x2000, words: 0x0046 },
  { table: 'holding', start: 0x101e, words: 0x000c },
];

const PROTOCOL_CODES = { none2: 2, none1: 3, even1: 4, odd1: 5 } as const;
const BAUD_CODES: ReadonlyMap<number, number> = new Map([
  [1200, 0],
  [2400, 1],
  [4800, 2],
  [9600, 3],
  [19200, 4],
]);

function protocolCode(line: SlaveLine): number {
  if (line.parity === 'even') return PROTOCOL_CODES.even1;
  if (line.parity === 'odd') return PROTOCOL_CODES.odd1;
  return line.stopBits === 2 ? PROTOCOL_CODES.none2 : PROTOCOL_CODES.none1;
}

export const DTSU666_BLOCKS: ReadonlyArray<RegisterBlock<Values>> = [
  {
    table: 'holding',
    start: 0x0000,
    words: 0x0030,
    fill(values, target) {
      putInt16(target, 0x0003, 0);
      putInt16(target, 0x0006, 1);
      putInt16(target, 0x0007, 10);
      const line = values.line;
      putInt16(target, 0x002c, line === undefined ? 0 : protocolCode(line));
      putInt16(target, 0x002d, line === undefined ? 0 : (BAUD_CODES.get(line.baudRate) ?? 0));
      putInt16(target, 0x002e, line?.unitId ?? 0);
    },
  },
  floatBlock('holding', 0x1000, 0x0032, DTSU666_POINTS),
  floatBlock('holding', 0x2000, 0x0052, DTSU666_POINTS),
];
