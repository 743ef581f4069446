import { meanOf, sumOf } from './grid-values.js';
import { putString, putUint16, putUint32, toInteger } from '../register-encodings.js';
export const SUNSPEC_BASE = 40000;
const COMMON_LENGTH = 66;
const METER_MODEL = 203;
const METER_LENGTH = 105;
const METER_START = 4 + COMMON_LENGTH + 2; // model 203 data, relative to the base
const END_MARKER = METER_START + METER_LENGTH;
export const SUNSPEC_WORDS = END_MARKER + 2;
/** Point offsets inside a meter model (201..204), from its first data register. */
export const METER_POINTS = {
    A: 0,
    AphA: 1,
    A_SF: 4,
    PhV: 5,
    PhVphA: 6,
    V_SF: 13,
    Hz: 14,
    Hz_SF: 15,
    W: 16,
    WphA: 17,
    W_SF: 20,
    VA: 21,
    VA_SF: 25,
    VAR: 26,
    VARphA: 27,
    VAR_SF: 30,
    PF: 31,
    PF_SF: 35,
    TotWhExp: 36,
    TotWhImp: 44,
    TotWh_SF: 52,
    TotVAh_SF: 69,
    TotVArhImpQ1: 70,
    TotVArhImpQ2: 78,
    TotVArhExpQ3: 86,
    TotVArhExpQ4: 94,
    TotVArh_SF: 102,
    Evt: 103,
};
export const METER_MODEL_IDS = [201, 202, 203, 204];
const INT16_NOT_IMPLEMENTED = 0x8000;
const UINT16_NOT_IMPLEMENTED = 0xffff;
const SUNSSF_NOT_IMPLEMENTED = 0x8000;
/** The finest scale factor >= `finest` at which every present value fits an int16. */
export function scaleFactorFor(values, finest) {
    const largest = Math.max(0, ...values.map((v) => (v === undefined ? 0 : Math.abs(v))));
    let sf = finest;
    while (sf < 10 && Math.round(largest / 10 ** sf) > 0x7fff)
        sf++;
    return sf;
}
/** value / 10^sf as int16, or the not-implemented value when absent. */
function putScaled(target, address, value, sf) {
    if (value === undefined)
        target.writeUInt16BE(INT16_NOT_IMPLEMENTED, address * 2);
    else
        target.writeInt16BE(toInteger(value / 10 ** sf, -0x7fff, 0x7fff), address * 2);
}
function putSf(target, address, sf) {
    target.writeInt16BE(sf, address * 2);
}
/** Energy counter in Wh as acc32 at scale `sf`; 0 (not accumulated) when absent. */
function putAcc32(target, address, wattHours, sf) {
    putUint32(target, address, wattHours === undefined ? 0 : wattHours / 10 ** sf);
}
function fillGroup(target, at, total, phases, finest, sfAt = at + 4) {
    const all = [total, ...phases];
    const sf = scaleFactorFor(all, finest);
    all.forEach((value, k) => putScaled(target, at + k, value, sf));
    putSf(target, sfAt, sf);
}
function fillCommon(values, target) {
    const base = 4;
    putString(target, base, 16, 'meter-gateway');
    putString(target, base + 16, 16, values.identity.model ?? '');
    putString(target, base + 32, 8, values.identity.prefix ?? '');
    putString(target, base + 40, 8, values.system.firmware);
    putString(target, base + 48, 16, values.identity.id ?? values.system.id);
    if (values.line === undefined)
        putUint16(target, base + 64, UINT16_NOT_IMPLEMENTED);
    else
        putUint16(target, base + 64, values.line.unitId);
    putUint16(target, base + 65, 0x8000); // Pad
}
function fillMeter(v, target) {
    const m = METER_START;
    const p = METER_POINTS;
    fillGroup(target, m + p.A, sumOf(v.current), v.current, -2);
    fillGroup(target, m + p.PhV, meanOf(v.voltage), v.voltage, -1, m + p.V_SF);
    // Phase-to-phase voltages (PPV, PPVphAB..CA, under V_SF): not measured by the grid meter.
    for (let k = 9; k <= 12; k++)
        putScaled(target, m + k, undefined, 0);
    putScaled(target, m + p.Hz, v.frequency, -2);
    putSf(target, m + p.Hz_SF, -2);
    fillGroup(target, m + p.W, v.power, v.phasePower, 0);
    fillGroup(target, m + p.VA, v.apparent, [undefined, undefined, undefined], 0);
    fillGroup(target, m + p.VAR, v.reactive, v.phaseReactive, 0);
    // SunSpec model 203: PF in percent under PF_SF; at SF -2 (0.01 %) a meter's 0.9996 is 99.96, not
    // 100.0, and -100.00..100.00 fits the int16 (±10000).
    const pfPercent = v.powerFactor === undefined ? undefined : v.powerFactor * 100;
    fillGroup(target, m + p.PF, pfPercent, [undefined, undefined, undefined], -2);
    const exportWh = v.exportEnergy === undefined ? undefined : v.exportEnergy * 1000;
    const importWh = v.importEnergy === undefined ? undefined : v.importEnergy * 1000;
    let whSf = 0;
    while (whSf < 10 && Math.max(exportWh ?? 0, importWh ?? 0) / 10 ** whSf > 0xffffffff)
        whSf++;
    putAcc32(target, m + p.TotWhExp, exportWh, whSf);
    putAcc32(target, m + p.TotWhImp, importWh, whSf);
    putSf(target, m + p.TotWh_SF, whSf);
    // Per-phase and apparent / reactive energies (acc32 0 = not accumulated) and their SFs.
    putSf(target, m + p.TotVAh_SF, SUNSSF_NOT_IMPLEMENTED - 0x10000);
    putSf(target, m + p.TotVArh_SF, SUNSSF_NOT_IMPLEMENTED - 0x10000);
    putUint32(target, m + p.Evt, 0); // Evt: no events
}
/** int16 x 10^sf, or undefined when the point or its SF is "not implemented". */
function scaledAt(model, offset, sfOffset) {
    const raw = model.readInt16BE(offset * 2);
    const sf = model.readInt16BE(sfOffset * 2);
    if (raw === -0x8000 || sf === -0x8000)
        return undefined;
    return Number((raw * 10 ** sf).toPrecision(12));
}
/** acc32 x 10^sf in kWh (or kvarh); undefined when 0 (not accumulated) or the SF is not implemented. */
function counterAt(model, offset, sfOffset) {
    const raw = model.readUInt32BE(offset * 2);
    const sf = model.readInt16BE(sfOffset * 2);
    if (raw === 0 || sf === -0x8000)
        return undefined;
    return Number(((raw * 10 ** sf) / 1000).toPrecision(12));
}
/**
 * The quantities of a meter model's data registers (`model` = the registers after ID and L, at
 * least up to TotVArh_SF). Reactive energy is Q1 + Q2 import and Q3 + Q4 export, when present.
 */
export function decodeMeterModel(model) {
    const p = METER_POINTS;
    const out = {};
    const set = (key, value) => {
        if (value !== undefined)
            out[key] = value;
    };
    for (let k = 0; k < 3; k++) {
        set(`current.${k}`, scaledAt(model, p.AphA + k, p.A_SF));
        set(`voltage.${k}`, scaledAt(model, p.PhVphA + k, p.V_SF));
        set(`phasePower.${k}`, scaledAt(model, p.WphA + k, p.W_SF));
        set(`phaseReactive.${k}`, scaledAt(model, p.VARphA + k, p.VAR_SF));
    }
    set('frequency', scaledAt(model, p.Hz, p.Hz_SF));
    set('power', scaledAt(model, p.W, p.W_SF));
    set('apparent', scaledAt(model, p.VA, p.VA_SF));
    set('reactive', scaledAt(model, p.VAR, p.VAR_SF));
    const pf = scaledAt(model, p.PF, p.PF_SF);
    if (pf !== undefined)
        out.powerFactor = Number((pf / 100).toPrecision(6));
    set('importEnergy', counterAt(model, p.TotWhImp, p.TotWh_SF));
    set('exportEnergy', counterAt(model, p.TotWhExp, p.TotWh_SF));
    const q = (a, b) => {
        const [x, y] = [counterAt(model, a, p.TotVArh_SF), counterAt(model, b, p.TotVArh_SF)];
        return x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
    };
    set('reactiveImportEnergy', q(p.TotVArhImpQ1, p.TotVArhImpQ2));
    set('reactiveExportEnergy', q(p.TotVArhExpQ3, p.TotVArhExpQ4));
    return out;
}
export const SUNSPEC_BLOCKS = [
    {
        table: 'holding',
        start: SUNSPEC_BASE,
        words: SUNSPEC_WORDS,
        fill(values, target) {
            putString(target, 0, 2, 'SunS');
            putUint16(target, 2, 1);
            putUint16(target, 3, COMMON_LENGTH);
            fillCommon(values, target);
            putUint16(target, METER_START - 2, METER_MODEL);
            putUint16(target, METER_START - 1, METER_LENGTH);
            fillMeter(values, target);
            putUint16(target, END_MARKER, 0xffff);
            putUint16(target, END_MARKER + 1, 0);
        },
    },
];
