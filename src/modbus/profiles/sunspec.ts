import type { RegisterBlock } from '../register-space.js';
import { meanOf, sumOf, type GridValues } from './grid-values.js';
import { toInteger } from '../encoder.js';
import { putString, putUint16, putUint32 } from './register-encodings.js';

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
 * sunssf 0x8000.
 */

type Values = GridValues;

export const SUNSPEC_BASE = 40000;
const COMMON_LENGTH = 66;
const METER_MODEL = 203;
const METER_LENGTH = 105;
const METER_START = 4 + COMMON_LENGTH + 2; // model 203 data, relative to the base
const END_MARKER = METER_START + METER_LENGTH;
export const SUNSPEC_WORDS = END_MARKER + 2;

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
  fillGroup(target, m + 0, sumOf(v.current), v.current, -2);
  fillGroup(target, m + 5, meanOf(v.voltage), v.voltage, -1, m + 13);
  // Phase-to-phase voltages (PPV, PPVphAB..CA, under V_SF): not measured by the grid meter.
  for (let k = 9; k <= 12; k++) putScaled(target, m + k, undefined, 0);
  putScaled(target, m + 14, undefined, 0); // Hz
  putSf(target, m + 15, 0);
  fillGroup(target, m + 16, v.power, v.phasePower, 0);
  fillGroup(target, m + 21, v.apparent, [undefined, undefined, undefined], 0);
  fillGroup(target, m + 26, v.reactive, v.phaseReactive, 0);
  const pfPercent = v.powerFactor === undefined ? undefined : v.powerFactor * 100;
  fillGroup(target, m + 31, pfPercent, [undefined, undefined, undefined], -1);
  const exportWh = v.exportEnergy === undefined ? undefined : v.exportEnergy * 1000;
  const importWh = v.importEnergy === undefined ? undefined : v.importEnergy * 1000;
  let whSf = 0;
  while (whSf < 10 && Math.max(exportWh ?? 0, importWh ?? 0) / 10 ** whSf > 0xffffffff) whSf++;
  putAcc32(target, m + 36, exportWh, whSf);
  putAcc32(target, m + 44, importWh, whSf);
  putSf(target, m + 52, whSf);
  // Per-phase and apparent / reactive energies (acc32 0 = not accumulated) and their SFs.
  putSf(target, m + 69, SUNSSF_NOT_IMPLEMENTED - 0x10000);
  putSf(target, m + 102, SUNSSF_NOT_IMPLEMENTED - 0x10000);
  putUint32(target, m + 103, 0); // Evt: no events
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
