import type { RegisterBlock } from '../register-block.js';
import { floatBlock, floatPoint, type FloatPoint, type PollRange } from './float-points.js';
import { meanOf, sumOf, type GridValues, type SlaveLine } from './grid-values.js';
import { phaseBlock, phases, type Quantity } from './quantities.js';
import { putUint32 } from '../register-encodings.js';

/**
 * Eastron SDM630, SDM120 and SDM72 register maps, from Eastron's published "SDM630 Modbus
 * Protocol" (V1.8 / MID V2, table "Input Registers", 30001..30382), "SDM120 Modbus Protocol" (V2.4)
 * and "SDM72D-M-2 Modbus Protocol" (V1.1, input registers 30001..30397 and 31281..31284); the
 * same addresses as volkszaehler/mbmd's meter definitions (meters/rs485/sdm.go, sdm72v2.go):
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
 * No data (no meter yet, or stale): every measurement reads NaN, which inverters treat as a
 * failed meter read, so their export limiter falls back to its safe state instead of regulating
 * on an old number; the energy counters keep their last valid value (they are still true). A
 * quantity the grid meter does not send (phase angle, per-phase energies, per-phase apparent power
 * or power factor of a meter without them) reads NaN; the frequency is the meter's or the nominal one (./grid-values.ts).
 *
 * The same points decode a real Eastron meter read by the Modbus meter source: one read of
 * 30001..30080 (FC 04, 0x0000 x 80) carries every quantity of the quantity table; an SDM630 is
 * also asked for its per-phase energies (SDM630_POLLS).
 */

type Values = GridValues;

const at = (address: number, quantity?: Quantity): FloatPoint => floatPoint(address, quantity);
const derived = (address: number, derive: (v: Values) => number | undefined): FloatPoint => ({
  address,
  derive,
});

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
      derived(0x000a, () => systemType),
      derived(0x0012, fromLine(parityCode)),
      derived(
        0x0014,
        fromLine((line) => line.unitId),
      ),
      derived(
        0x001c,
        fromLine((line) => BAUD_CODES.get(line.baudRate)),
      ),
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
  netEnergy: (v: Values) =>
    v.importEnergy === undefined || v.exportEnergy === undefined
      ? undefined
      : v.importEnergy - v.exportEnergy,
};

/** 30001..30080: the per-phase and total block shared by SDM630 and SDM72. */
function threePhasePoints(): FloatPoint[] {
  const points: FloatPoint[] = [];
  const [voltage, current, power, reactive] = phaseBlock();
  const apparent = phases('phaseApparent');
  const powerFactor = phases('phasePowerFactor');
  for (let phase = 0; phase < 3; phase++) {
    points.push(
      at(0x0000 + 2 * phase, voltage[phase]),
      at(0x0006 + 2 * phase, current[phase]),
      at(0x000c + 2 * phase, power[phase]),
      at(0x0012 + 2 * phase, apparent[phase]), // phase VA (30019..30023)
      at(0x0018 + 2 * phase, reactive[phase]),
      at(0x001e + 2 * phase, powerFactor[phase]), // phase power factor (30031..30035)
      at(0x0024 + 2 * phase), // phase angle
    );
  }
  points.push(
    derived(0x002a, total.voltageMean),
    derived(0x002e, total.currentMean),
    derived(0x0030, total.currentSum),
    at(0x0034, 'power'),
    at(0x0038, 'apparent'),
    at(0x003c, 'reactive'),
    at(0x003e, 'powerFactor'),
    at(0x0042), // total phase angle
    ...commonTail(),
  );
  return points;
}

/** 30071..30080, the same on every Eastron map: frequency, kWh and kvarh import / export. */
function commonTail(): FloatPoint[] {
  return [
    at(0x0046, 'frequency'),
    at(0x0048, 'importEnergy'),
    at(0x004a, 'exportEnergy'),
    at(0x004c, 'reactiveImportEnergy'),
    at(0x004e, 'reactiveExportEnergy'),
  ];
}

/**
 * SDM630 V1.8 30343..30382 (0x0156..0x017D): total kWh and kvarh, then per phase L1..L3 import
 * kWh (30347/30349/30351, 0x015A..), export kWh (30353/30355/30357, 0x0160..), total kWh (0x0166),
 * import kvarh (0x016C), export kvarh (0x0172), total kvarh (0x0178). The per-phase import and
 * export kWh are the meter's OBIS 21/41/61.8.0 and 22/42/62.8.0; a grid meter without them (DSMR)
 * leaves them NaN, as it does the per-phase totals and kvarh.
 */
function energyTotalPoints(): FloatPoint[] {
  const points = [derived(0x0156, total.totalEnergy), derived(0x0158, total.totalReactiveEnergy)];
  const imported = phases('phaseImportEnergy');
  const exported = phases('phaseExportEnergy');
  for (let phase = 0; phase < 3; phase++)
    points.push(at(0x015a + 2 * phase, imported[phase]), at(0x0160 + 2 * phase, exported[phase]));
  for (let address = 0x0166; address <= 0x017c; address += 2) points.push(at(address));
  return points;
}

/** The read a meter source makes of an Eastron meter: 30001..30080. */
export const EASTRON_POLLS: readonly PollRange[] = [{ table: 'input', start: 0x0000, words: 0x0050 }];

/**
 * An SDM630 is read in two requests: 30001..30080, then the per-phase import and export kWh
 * 30347..30358 (0x015A, 12 registers). A meter whose firmware answers the second range with an
 * exception has no per-phase energies; it is read without them.
 */
export const SDM630_POLLS: readonly PollRange[] = [
  ...EASTRON_POLLS,
  { table: 'input', start: 0x015a, words: 0x000c, optional: true },
];

export const SDM630_POINTS: readonly FloatPoint[] = [
  ...threePhasePoints(),
  at(0x00c8), // line-to-line voltages L1-L2, L2-L3, L3-L1, average
  at(0x00ca),
  at(0x00cc),
  at(0x00ce),
  at(0x00e0), // neutral current
  ...energyTotalPoints(),
];

/** SDM630: 3P4W, input registers 30001..30382 (0x0000..0x017D). */
export const SDM630_BLOCKS: ReadonlyArray<RegisterBlock<Values>> = [
  floatBlock('input', 0x0000, 0x017e, SDM630_POINTS),
  ...setupBlocks(3),
];

/**
 * SDM72D-M-2 V1.1: the SDM630 values up to 30080, total kWh / kvarh at 30343 / 30345, net kWh
 * (import - export) at 30397 (0x018C), and total import power W at 31281 (0x0500), total export
 * power W at 31283 (0x0502), both positive.
 */
export const SDM72_POINTS: readonly FloatPoint[] = [
  ...threePhasePoints(),
  derived(0x0156, total.totalEnergy),
  derived(0x0158, total.totalReactiveEnergy),
  derived(0x018c, total.netEnergy),
  derived(0x0500, (v) => (v.power === undefined ? undefined : Math.max(0, v.power))),
  derived(0x0502, (v) => (v.power === undefined ? undefined : Math.max(0, -v.power))),
];

export const SDM72_BLOCKS: ReadonlyArray<RegisterBlock<Values>> = [
  floatBlock('input', 0x0000, 0x018e, SDM72_POINTS),
  floatBlock('input', 0x0500, 0x0004, SDM72_POINTS),
  ...setupBlocks(3),
];

/**
 * SDM120 (one phase, 1P2W): the grid connection's total power, reactive and apparent power,
 * power factor and energies; voltage and current of L1 (a single-phase meter's only line).
 */
export const SDM120_POINTS: readonly FloatPoint[] = [
  at(0x0000, 'voltage.0'),
  at(0x0006, 'current.0'),
  at(0x000c, 'power'),
  at(0x0012, 'apparent'),
  at(0x0018, 'reactive'),
  at(0x001e, 'powerFactor'),
  at(0x0024), // phase angle
  ...commonTail(),
  derived(0x0156, total.totalEnergy),
  derived(0x0158, total.totalReactiveEnergy),
];

export const SDM120_BLOCKS: ReadonlyArray<RegisterBlock<Values>> = [
  floatBlock('input', 0x0000, 0x015a, SDM120_POINTS),
  ...setupBlocks(1),
];
