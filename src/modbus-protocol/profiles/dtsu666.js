import { floatBlock, floatPoint } from './float-points.js';
import { phaseBlock } from './quantities.js';
import { putInt16 } from '../register-encodings.js';
const at = floatPoint;
function measurementPoints() {
    const points = [];
    const [voltage, current, power, reactive] = phaseBlock();
    for (let k = 0; k < 3; k++) {
        points.push(at(0x2000 + 2 * k), // line-to-line voltages: not measured by the grid meter
        at(0x2006 + 2 * k, voltage[k], 10), at(0x200c + 2 * k, current[k], 1000), at(0x2014 + 2 * k, power[k], 10), at(0x201c + 2 * k, reactive[k], 10), at(0x2024 + 2 * k), // phase apparent power
        at(0x202c + 2 * k));
    }
    points.push(at(0x2012, 'power', 10), at(0x201a, 'reactive', 10), at(0x2022, 'apparent', 10), at(0x202a, 'powerFactor', 1000), at(0x2044, 'frequency', 100));
    return points;
}
function energyPoints() {
    const points = [];
    for (let address = 0x1000; address < 0x101e; address += 2)
        points.push(at(address));
    points.push(at(0x101e, 'importEnergy'), at(0x1028, 'exportEnergy'));
    for (let k = 1; k <= 4; k++)
        points.push(at(0x101e + 2 * k), at(0x1028 + 2 * k)); // per phase, net
    return points;
}
export const DTSU666_POINTS = [...measurementPoints(), ...energyPoints()];
/** The reads a meter source makes of a DTSU666: the measurements, then import and export kWh. */
export const DTSU666_POLLS = [
    { table: 'holding', start: 0x2000, words: 0x0046 },
    { table: 'holding', start: 0x101e, words: 0x000c },
];
const PROTOCOL_CODES = { none2: 2, none1: 3, even1: 4, odd1: 5 };
const BAUD_CODES = new Map([
    [1200, 0],
    [2400, 1],
    [4800, 2],
    [9600, 3],
    [19200, 4],
]);
function protocolCode(line) {
    if (line.parity === 'even')
        return PROTOCOL_CODES.even1;
    if (line.parity === 'odd')
        return PROTOCOL_CODES.odd1;
    return line.stopBits === 2 ? PROTOCOL_CODES.none2 : PROTOCOL_CODES.none1;
}
export const DTSU666_BLOCKS = [
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
