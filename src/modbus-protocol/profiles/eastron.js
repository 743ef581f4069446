import { floatBlock, floatPoint } from './float-points.js';
import { meanOf, sumOf } from './grid-values.js';
import { phaseBlock, phases } from './quantities.js';
import { putUint32 } from '../register-encodings.js';
const at = (address, quantity) => floatPoint(address, quantity);
const derived = (address, derive) => ({
    address,
    derive,
});
const BAUD_CODES = new Map([
    [2400, 0],
    [4800, 1],
    [9600, 2],
    [19200, 3],
    [38400, 4],
    [1200, 5],
]);
function parityCode(line) {
    if (line.parity === 'even')
        return 1;
    if (line.parity === 'odd')
        return 2;
    return line.stopBits === 2 ? 3 : 0;
}
/** Trailing digits of the meter serial, as many as fit an unsigned 32-bit register pair. */
export function numericSerial(id) {
    const digits = /(\d{1,9})\D*$/.exec(id ?? '')?.[1];
    return digits === undefined ? 0 : Number(digits);
}
function setupBlocks(systemType) {
    const fromLine = (pick) => (v) => v.line === undefined ? 0 : pick(v.line);
    return [
        floatBlock('holding', 0x0000, 0x0030, [
            derived(0x000a, () => systemType),
            derived(0x0012, fromLine(parityCode)),
            derived(0x0014, fromLine((line) => line.unitId)),
            derived(0x001c, fromLine((line) => BAUD_CODES.get(line.baudRate))),
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
    voltageMean: (v) => meanOf(v.voltage),
    currentMean: (v) => meanOf(v.current),
    currentSum: (v) => sumOf(v.current),
    totalEnergy: (v) => sumOf([v.importEnergy, v.exportEnergy]),
    totalReactiveEnergy: (v) => sumOf([v.reactiveImportEnergy, v.reactiveExportEnergy]),
    netEnergy: (v) => v.importEnergy === undefined || v.exportEnergy === undefined
        ? undefined
        : v.importEnergy - v.exportEnergy,
};
/** 30001..30080: the per-phase and total block shared by SDM630 and SDM72. */
function threePhasePoints() {
    const points = [];
    const [voltage, current, power, reactive] = phaseBlock();
    const apparent = phases('phaseApparent');
    const powerFactor = phases('phasePowerFactor');
    for (let phase = 0; phase < 3; phase++) {
        points.push(at(0x0000 + 2 * phase, voltage[phase]), at(0x0006 + 2 * phase, current[phase]), at(0x000c + 2 * phase, power[phase]), at(0x0012 + 2 * phase, apparent[phase]), // phase VA (30019..30023)
        at(0x0018 + 2 * phase, reactive[phase]), at(0x001e + 2 * phase, powerFactor[phase]), // phase power factor (30031..30035)
        at(0x0024 + 2 * phase));
    }
    points.push(derived(0x002a, total.voltageMean), derived(0x002e, total.currentMean), derived(0x0030, total.currentSum), at(0x0034, 'power'), at(0x0038, 'apparent'), at(0x003c, 'reactive'), at(0x003e, 'powerFactor'), at(0x0042), // total phase angle
    ...commonTail());
    return points;
}
/** 30071..30080, the same on every Eastron map: frequency, kWh and kvarh import / export. */
function commonTail() {
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
 * kWh (0x015A), export kWh (0x0160), total kWh (0x0166), import kvarh (0x016C), export kvarh
 * (0x0172), total kvarh (0x0178). The grid meter sends no per-phase energies: those read NaN.
 */
function energyTotalPoints() {
    const points = [derived(0x0156, total.totalEnergy), derived(0x0158, total.totalReactiveEnergy)];
    for (let address = 0x015a; address <= 0x017c; address += 2)
        points.push(at(address));
    return points;
}
/** The read a meter source makes of an Eastron meter: 30001..30080. */
export const EASTRON_POLLS = [{ table: 'input', start: 0x0000, words: 0x0050 }];
export const SDM630_POINTS = [
    ...threePhasePoints(),
    at(0x00c8), // line-to-line voltages L1-L2, L2-L3, L3-L1, average
    at(0x00ca),
    at(0x00cc),
    at(0x00ce),
    at(0x00e0), // neutral current
    ...energyTotalPoints(),
];
/** SDM630: 3P4W, input registers 30001..30382 (0x0000..0x017D). */
export const SDM630_BLOCKS = [
    floatBlock('input', 0x0000, 0x017e, SDM630_POINTS),
    ...setupBlocks(3),
];
/**
 * SDM72D-M-2 V1.1: the SDM630 values up to 30080, total kWh / kvarh at 30343 / 30345, net kWh
 * (import - export) at 30397 (0x018C), and total import power W at 31281 (0x0500), total export
 * power W at 31283 (0x0502), both positive.
 */
export const SDM72_POINTS = [
    ...threePhasePoints(),
    derived(0x0156, total.totalEnergy),
    derived(0x0158, total.totalReactiveEnergy),
    derived(0x018c, total.netEnergy),
    derived(0x0500, (v) => (v.power === undefined ? undefined : Math.max(0, v.power))),
    derived(0x0502, (v) => (v.power === undefined ? undefined : Math.max(0, -v.power))),
];
export const SDM72_BLOCKS = [
    floatBlock('input', 0x0000, 0x018e, SDM72_POINTS),
    floatBlock('input', 0x0500, 0x0004, SDM72_POINTS),
    ...setupBlocks(3),
];
/**
 * SDM120 (one phase, 1P2W): the grid connection's total power, reactive and apparent power,
 * power factor and energies; voltage and current of L1 (a single-phase meter's only line).
 */
export const SDM120_POINTS = [
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
export const SDM120_BLOCKS = [
    floatBlock('input', 0x0000, 0x015a, SDM120_POINTS),
    ...setupBlocks(1),
];
