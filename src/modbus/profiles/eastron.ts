import type { RegisterBlock } from '../register-space.js';
import { meanOf, sumOf, type GridValues, type SlaveLine } from './grid-values.js';
import { putFloat32, putUint32 } from './register-encodings.js';

/**
 * Eastron SDM630, SDM120 and SDM72 register maps, from Eastron's published "SDM630 Modbus
 * Protocol" (V1.8 / MID V2), "SDM120 Modbus Protocol" (V2.4) and "SDM72D-M-2 Modbus Protocol":
 *
 * - Input registers (FC 04), 30001.. = PDU address 0x0000..: every value an IEEE 754 float in two
 *   registers, high word first. W and var are signed (+ import, - export, as the meter reads with
 *   its line input on the grid side); currents are magnitudes; energies in kWh / kvarh.
 * - Holding registers (FC 03), 40001.. = PDU 0x0000..: the set-up values, also floats. The ones
 *   that mirror this slave are served: system type (0x000A: 1 = 1P2W, 3 = 3P4W), parity / stop
 *   bits (0x0012: 0 = 1 stop no parity, 1 = even, 2 = odd, 3 = 2 stop no parity), node address
 *   (0x0014), baud rate (0x001C: 0 = 2400, 1 = 4800, 2 = 9600, 3 = 19200, 4 = 38400). Over TCP,
 *   which has no serial line, those read 0.
 * - Serial number: holding 464513 = PDU 0xFC00, unsigned 32 bit: the trailing digits of the grid
 *   meter's serial (0 when it has none).
 *
 * No data (no meter yet, or stale): every measurement and counter reads NaN, which inverters
 * treat as a failed meter read, so their export limiter falls back to its safe state instead of
 * regulating on an old number. A quantity the grid meter does not send (frequency, phase
 * angle, per-phase apparent power) also reads NaN.
 */

type Values = GridValues;
type FloatPoint = [address: number, value: (v: Values) => number | undefined];

function floatBlock(
  table: 'input' | 'holding',
  start: number,
  words: number,
  points: FloatPoint[],
): RegisterBlock<Values> {
  return {
    table,
    start,
    words,
    fill(values, target) {
      for (const [address, value] of points) putFloat32(target, address - start, value(values));
    },
  };
}

const NO_DATA = (): undefined => undefined;

const BAUD_CODES: ReadonlyMap<number, number> = new Map([
  [2400, 0],
  [4800, 1],
  [9600, 2],
  [19200, 3],
  [38400, 4],
  [1200, 5],
]);

function parityCode(line: SlaveLine): number {
  if (line.parity === 'even') return 1;
  if (line.parity === 'odd') return 2;
  return line.stopBits === 2 ? 3 : 0;
}

/** Trailing digits of the meter serial, as many as fit an unsigned 32-bit register pair. */
export function numericSerial(id: string | undefined): number {
  const digits = /(\d{1,9})\D*$/.exec(id ?? '')?.[1];
  return digits === undefined ? 0 : Number(digits);
}

function setupBlocks(systemType: number): Array<RegisterBlock<Values>> {
  const fromLine =
    (pick: (line: SlaveLine) => number | undefined) =>
    (v: Values): number | undefined =>
      v.line === undefined ? 0 : pick(v.line);
  return [
    floatBlock('holding', 0x0000, 0x0030, [
      [0x000a, () => systemType],
      [0x0012, fromLine(parityCode)],
      [0x0014, fromLine((line) => line.unitId)],
      [0x001c, fromLine((line) => BAUD_CODES.get(line.baudRate))],
    ]),
    {
      table: 'holding',
      start: 0xfc00,
      words: 2,
      fill(values, target) {
        putUint32(target, 0, numericSerial(values.identity.id));
      },
    },
  ];
}

const total = {
  voltageMean: (v: Values) => meanOf(v.voltage),
  currentMean: (v: Values) => meanOf(v.current),
  currentSum: (v: Values) => sumOf(v.current),
  totalEnergy: (v: Values) => sumOf([v.importEnergy, v.exportEnergy]),
  totalReactiveEnergy: (v: Values) => sumOf([v.reactiveImportEnergy, v.reactiveExportEnergy]),
};

/** 30001..30080: the per-phase and total block shared by SDM630 and SDM72. */
function threePhasePoints(): FloatPoint[] {
  const points: FloatPoint[] = [];
  for (let phase = 0; phase < 3; phase++) {
    points.push([0x0000 + 2 * phase, (v) => v.voltage[phase]]);
    points.push([0x0006 + 2 * phase, (v) => v.current[phase]]);
    points.push([0x000c + 2 * phase, (v) => v.phasePower[phase]]);
    points.push([0x0012 + 2 * phase, NO_DATA]); // phase VA
    points.push([0x0018 + 2 * phase, (v) => v.phaseReactive[phase]]);
    points.push([0x001e + 2 * phase, NO_DATA]); // phase power factor
    points.push([0x0024 + 2 * phase, NO_DATA]); // phase angle
  }
  points.push(
    [0x002a, total.voltageMean],
    [0x002e, total.currentMean],
    [0x0030, total.currentSum],
    [0x0034, (v) => v.power],
    [0x0038, (v) => v.apparent],
    [0x003c, (v) => v.reactive],
    [0x003e, (v) => v.powerFactor],
    [0x0042, NO_DATA], // total phase angle
    [0x0046, NO_DATA], // frequency
    [0x0048, (v) => v.importEnergy],
    [0x004a, (v) => v.exportEnergy],
    [0x004c, (v) => v.reactiveImportEnergy],
    [0x004e, (v) => v.reactiveExportEnergy],
  );
  return points;
}

/** SDM630: 3P4W, input registers 30001..30346 (0x0000..0x0159). */
export const SDM630_BLOCKS: ReadonlyArray<RegisterBlock<Values>> = [
  floatBlock('input', 0x0000, 0x015a, [
    ...threePhasePoints(),
    [0x00c8, NO_DATA], // line-to-line voltages L1-L2, L2-L3, L3-L1, average
    [0x00ca, NO_DATA],
    [0x00cc, NO_DATA],
    [0x00ce, NO_DATA],
    [0x00e0, NO_DATA], // neutral current
    [0x0156, total.totalEnergy],
    [0x0158, total.totalReactiveEnergy],
  ]),
  ...setupBlocks(3),
];

/**
 * SDM72D-M V2: the SDM630 values up to 30080, totals at 30343/30345, and the net block at 31281
 * (0x0500 net kWh import - export, 0x0502 import power W, 0x0504 export power W).
 */
export const SDM72_BLOCKS: ReadonlyArray<RegisterBlock<Values>> = [
  floatBlock('input', 0x0000, 0x015a, [
    ...threePhasePoints(),
    [0x0156, total.totalEnergy],
    [0x0158, total.totalReactiveEnergy],
  ]),
  floatBlock('input', 0x0500, 0x0006, [
    [
      0x0500,
      (v) =>
        v.importEnergy === undefined || v.exportEnergy === undefined
          ? undefined
          : v.importEnergy - v.exportEnergy,
    ],
    [0x0502, (v) => (v.power === undefined ? undefined : Math.max(0, v.power))],
    [0x0504, (v) => (v.power === undefined ? undefined : Math.max(0, -v.power))],
  ]),
  ...setupBlocks(3),
];

/**
 * SDM120 (one phase, 1P2W): the grid connection's total power, reactive and apparent power,
 * power factor and energies; voltage and current of L1 (a single-phase meter's only line).
 */
export const SDM120_BLOCKS: ReadonlyArray<RegisterBlock<Values>> = [
  floatBlock('input', 0x0000, 0x015a, [
    [0x0000, (v) => v.voltage[0]],
    [0x0006, (v) => v.current[0]],
    [0x000c, (v) => v.power],
    [0x0012, (v) => v.apparent],
    [0x0018, (v) => v.reactive],
    [0x001e, (v) => v.powerFactor],
    [0x0024, NO_DATA], // phase angle
    [0x0046, NO_DATA], // frequency
    [0x0048, (v) => v.importEnergy],
    [0x004a, (v) => v.exportEnergy],
    [0x004c, (v) => v.reactiveImportEnergy],
    [0x004e, (v) => v.reactiveExportEnergy],
    [0x0156, total.totalEnergy],
    [0x0158, total.totalReactiveEnergy],
  ]),
  ...setupBlocks(1),
];
