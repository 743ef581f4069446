import { PHASES } from '../../reading/phases.js';
/** Sign conventions of power (services.modbus.direction, services.modbus_rtu.direction). */
export const POWER_DIRECTIONS = ['import_positive', 'export_positive'];
function scaled(value, factor) {
    return value === undefined ? undefined : value * factor;
}
function magnitude(value) {
    return value === undefined ? undefined : Math.abs(value);
}
/** import - export of two OBIS values in kW/kvar, times 1000 and the direction's sign. */
function signedPower(reading, positive, negative, sign) {
    const plus = reading.values.get(positive)?.value;
    const minus = reading.values.get(negative)?.value;
    if (plus === undefined && minus === undefined)
        return undefined;
    return Number((((plus ?? 0) - (minus ?? 0)) * 1000 * sign).toPrecision(15)) + 0;
}
/** Per-phase apparent power (import, kVA) and power factor, IEC 62056-61 C = 29/49/69 and 33/53/73. */
export const PHASE_APPARENT = ['29.7.0', '49.7.0', '69.7.0'];
export const PHASE_POWER_FACTOR = ['33.7.0', '53.7.0', '73.7.0'];
export function gridValues(source) {
    const { reading, identity, system, line } = source;
    const sign = source.direction === 'export_positive' ? -1 : 1;
    const nominal = source.nominalFrequency ? source.nominalFrequency : undefined;
    if (reading === undefined) {
        const none = [undefined, undefined, undefined];
        const last = source.previous;
        return {
            fresh: false,
            power: undefined,
            phasePower: none,
            reactive: undefined,
            phaseReactive: none,
            apparent: undefined,
            phaseApparent: none,
            phasePowerFactor: none,
            voltage: none,
            current: none,
            powerFactor: undefined,
            frequency: undefined,
            importEnergy: last?.importEnergy,
            exportEnergy: last?.exportEnergy,
            reactiveImportEnergy: last?.reactiveImportEnergy,
            reactiveExportEnergy: last?.reactiveExportEnergy,
            identity,
            system,
            line,
        };
    }
    const value = (obis) => reading.values.get(obis)?.value;
    return {
        fresh: true,
        power: signedPower(reading, '1.7.0', '2.7.0', sign),
        phasePower: PHASES.map((phase) => signedPower(reading, phase.activeImport, phase.activeExport, sign)),
        reactive: signedPower(reading, '3.7.0', '4.7.0', sign),
        phaseReactive: PHASES.map((phase) => signedPower(reading, phase.reactiveImport, phase.reactiveExport, sign)),
        apparent: scaled(value('9.7.0'), 1000),
        phaseApparent: PHASE_APPARENT.map((obis) => scaled(value(obis), 1000)),
        phasePowerFactor: PHASE_POWER_FACTOR.map((obis) => value(obis)),
        voltage: PHASES.map((phase) => value(phase.voltage)),
        current: PHASES.map((phase) => magnitude(value(phase.current))),
        powerFactor: value('13.7.0'),
        frequency: value('14.7.0') ?? nominal,
        importEnergy: value('1.8.0'),
        exportEnergy: value('2.8.0'),
        reactiveImportEnergy: value('3.8.0'),
        reactiveExportEnergy: value('4.8.0'),
        identity,
        system,
        line,
    };
}
/** Mean of the values present; undefined when none is. */
export function meanOf(values) {
    const present = values.filter((v) => v !== undefined);
    return present.length === 0 ? undefined : present.reduce((a, b) => a + b, 0) / present.length;
}
/** Sum of the values present; undefined when none is. */
export function sumOf(values) {
    const present = values.filter((v) => v !== undefined);
    return present.length === 0 ? undefined : present.reduce((a, b) => a + b, 0);
}
