import type { RegisterBlock } from '../register-block.js';
import { meanOf, sumOf, type GridValues } from './grid-values.js';
import type { MeasuredValues } from './quantities.js';
import { putString, putUint16, putUint32, toInteger } from '../register-encodings.js';

/**
 * SunSpec meter (SunSpec Information Model Specification; models 1 "Common" and 203 "Wye-connect
 * three phase (abcn) meter", integer + scale factor), holding registers (FC 03) from base 40000
 * (PDU address 40000, logical 40001):
 *
 *   40000 "SunS" (0x5375 0x6E53)
 *   40002 ID 1, 40003 L 66: Mn (16 regs), Md (16), Opt (8), Vr (8), SN (16), DA, Pad
 *   40070 ID 203, 40071 L 105: the meter points below
 *   40177 ID 0xFFFF, 40178 L 0: end of the model chain
 *
 * Model 203 offsets (from 40072): 0 A, 1-3 AphA..C, 4 A_SF, 5 PhV, 6-8 PhVphA..C, 9 PPV,
 * 10-12 PPVphAB..CA, 13 V_SF, 14 Hz, 15 Hz_SF, 16 W, 17-19 WphA..C, 20 W_SF, 21 VA, 22-24 VAphA..C,
 * 25 VA_SF, 26 VAR, 27-29 VARphA..C, 30 VAR_SF, 31 PF, 32-34 PFphA..C, 35 PF_SF (PF in percent),
 * 36 TotWhExp (acc32), 38-42 TotWhExpPhA..C, 44 TotWhImp, 46-50 TotWhImpPhA..C, 52 TotWh_SF,
 * 53-68 apparent energies, 69 TotVAh_SF, 70-101 reactive energies by quadrant, 102 TotVArh_SF,
 * 103 Evt (bitfield32).
 *
 * Values are int16 (or acc32 for energies) times 10^SF. The scale factors are chosen per reading:
 * the finest one at which every value of its group fits (A from 0.01 A, V from 0.1 V, W/VA/var
 * from 1 W, Wh from 1 Wh), so a client must read a value and its SF in one request, which is how
 * SunSpec clients read a model. W is signed: + import from the grid, - export (in the default
 * direction). Unimplemented points, and every measurement while there is no data (no meter yet,
 * or stale), carry SunSpec's "not implemented" values: int16 0x8000, uint16 0xFFFF, acc32 0,
 * sunssf 0x8000. The energy counters (acc32) keep their last valid value while stale, as a
 * counter must not step back. Hz is the meter's frequency or the nominal one (./grid-values.ts),
 * in 0.01 Hz (Hz_SF -2).
 *
 * The meter models 201 (single phase), 202 (split phase), 203 (wye) and 204 (delta) share this
 * point layout, so the same offsets decode a real SunSpec meter read by the Modbus meter source.
 */

type Values = GridValues;

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
} as const;
export const METER_MODEL_IDS: readonly number[] = [201, 202, 203, 204];

const INT16_NOT_IMPLEMENTED = 0x8000;
const UINT16_NOT_IMPLEMENTED = 0xffff;
const SUNSSF_NOT_IMPLEMENTED = 0x8000;

/** The finest scale factor >= `finest` at which every present value fits an int16. */
export function scaleFactorFor(values: ReadonlyArray<number | undefined>, finest: number): number {
  const largest = Math.max(0, ...values.map((v) => (v === undefined ? 0 : Math.abs(v))));
  let sf = finest;
  while (sf < 10 && Math.round(largest / 10 ** sf) > 0x7fff) sf++;
  return sf;
}

/** value / 10^sf as int16, or the not-implemented value when absent. */
function putScaled(target: Buffer, address: number, value: number | undefined, sf: number): void {
  if (value === undefined) target.writeUInt16BE(INT16_NOT_IMPLEMENTED, address * 2);
  else target.writeInt16BE(toInteger(value / 10 ** sf, -0x7fff, 0x7fff), address * 2);
}

function putSf(target: Buffer, address: number, sf: number): void {
  target.writeInt16BE(sf, address * 2);
}

/** Energy counter in Wh as acc32 at scale `sf`; 0 (not accumulated) when absent. */
function putAcc32(target: Buffer, address: number, wattHours: number | undefined, sf: number): void {
  putUint32(target, address, wattHours === undefined ? 0 : wattHours / 10 ** sf);
}

function fillGroup(
  target: Buffer,
  at: number,
  total: number | undefined,
  phases: ReadonlyArray<number | undefined>,
  finest: number,
  sfAt = at + 4,
): void {
  const all = [total, ...phases];
  const sf = scaleFactorFor(all, finest);
  all.forEach((value, k) => putScaled(target, at + k, value, sf));
  putSf(target, sfAt, sf);
}

function fillCommon(values: Values, target: Buffer): void {
  const base = 4;
  putString(target, base, 16, 'meter-gateway');
  putString(target, base + 16, 16, values.identity.model ?? '');
  putString(target, base + 32, 8, values.identity.prefix ?? '');
  putString(target, base + 40, 8, values.system.firmware);
  putString(target, base + 48, 16, values.identity.id ?? values.system.id);
  if (values.line === undefined) putUint16(target, base + 64, UINT16_NOT_IMPLEMENTED);
  else putUint16(target, base + 64, values.line.unitId);
  putUint16(target, base + 65, 0x8000); // Pad
}

function fillMeter(v: Values, target: Buffer): void {
  const m = METER_START;
  const p = METER_POINTS;
  fillGroup(target, m + p.A, sumOf(v.current), v.current, -2);
  fillGroup(target, m + p.PhV, meanOf(v.voltage), v.voltage, -1, m + p.V_SF);
  // Phase-to-phase voltages (PPV, PPVphAB..CA, under V_SF): not measured by the grid meter.
  for (let k = 9; k <= 12; k++) putScaled(target, m + k, undefined, 0);
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
  while (whSf < 10 && Math.max(exportWh ?? 0, importWh ?? 0) / 10 ** whSf > 0xffffffff) whSf++;
  putAcc32(target, m + p.TotWhExp, exportWh, whSf);
  putAcc32(target, m + p.TotWhImp, importWh, whSf);
  putSf(target, m + p.TotWh_SF, whSf);
  // Per-phase and apparent / reactive energies (acc32 0 = not accumulated) and their SFs.
  putSf(target, m + p.TotVAh_SF, SUNSSF_NOT_IMPLEMENTED - 0x10000);
  putSf(target, m + p.TotVArh_SF, SUNSSF_NOT_IMPLEMENTED - 0x10000);
  putUint32(target, m + p.Evt, 0); // Evt: no events
}

/** int16 x 10^sf, or undefined when the point or its SF is "not implemented". */
function scaledAt(model: Buffer, offset: number, sfOffset: number): number | undefined {
  const raw = model.readInt16BE(offset * 2);
  const sf = model.readInt16BE(sfOffset * 2);
  if (raw === -0x8000 || sf === -0x8000) return undefined;
  return Number((raw * 10 ** sf).toPrecision(12));
}

/** acc32 x 10^sf in kWh (or kvarh); undefined when 0 (not accumulated) or the SF is not implemented. */
function counterAt(model: Buffer, offset: number, sfOffset: number): number | undefined {
  const raw = model.readUInt32BE(offset * 2);
  const sf = model.readInt16BE(sfOffset * 2);
  if (raw === 0 || sf === -0x8000) return undefined;
  return Number(((raw * 10 ** sf) / 1000).toPrecision(12));
}

/**
 * The quantities of a meter model's data registers (`model` = the registers after ID and L, at
 * least up to TotVArh_SF). Reactive energy is Q1 + Q2 import and Q3 + Q4 export, when present.
 */
export function decodeMeterModel(model: Buffer): MeasuredValues {
  const p = METER_POINTS;
  const out: MeasuredValues = {};
  const set = (key: keyof MeasuredValues, value: number | undefined): void => {
    if (value !== undefined) out[key] = value;
  };
  for (let k = 0; k < 3; k++) {
    set(`current.${k as 0 | 1 | 2}`, scaledAt(model, p.AphA + k, p.A_SF));
    set(`voltage.${k as 0 | 1 | 2}`, scaledAt(model, p.PhVphA + k, p.V_SF));
    set(`phasePower.${k as 0 | 1 | 2}`, scaledAt(model, p.WphA + k, p.W_SF));
    set(`phaseReactive.${k as 0 | 1 | 2}`, scaledAt(model, p.VARphA + k, p.VAR_SF));
  }
  set('frequency', scaledAt(model, p.Hz, p.Hz_SF));
  set('power', scaledAt(model, p.W, p.W_SF));
  set('apparent', scaledAt(model, p.VA, p.VA_SF));
  set('reactive', scaledAt(model, p.VAR, p.VAR_SF));
  const pf = scaledAt(model, p.PF, p.PF_SF);
  if (pf !== undefined) out.powerFactor = Number((pf / 100).toPrecision(6));
  set('importEnergy', counterAt(model, p.TotWhImp, p.TotWh_SF));
  set('exportEnergy', counterAt(model, p.TotWhExp, p.TotWh_SF));
  const q = (a: number, b: number): number | undefined => {
    const [x, y] = [counterAt(model, a, p.TotVArh_SF), counterAt(model, b, p.TotVArh_SF)];
    return x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  };
  set('reactiveImportEnergy', q(p.TotVArhImpQ1, p.TotVArhImpQ2));
  set('reactiveExportEnergy', q(p.TotVArhExpQ3, p.TotVArhExpQ4));
  return out;
}

export const SUNSPEC_BLOCKS: ReadonlyArray<RegisterBlock<Values>> = [
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
