/**
 * SunSpec register layout as the export limiter reads and writes it. Offsets are counted from a
 * model's ID register (ID at +0, L at +1, the first point at +2), as the SunSpec model definitions
 * (https://github.com/sunspec/models, json/model_<id>.json) list the points in order:
 *
 * - Discovery: the map starts with the marker "SunS" (0x5375 0x6E53) at 40000, 50000 or 0 (SunSpec
 *   Modbus Interoperability Specification, "Device Modbus Map"); model blocks follow as ID, L,
 *   then L registers, and ID 0xFFFF (L 0) ends the list.
 * - Model 101/102/103 (inverter, single / split / three phase): W (int16) at +14, W_SF at +15.
 * - Model 120 (nameplate): WRtg at +3, WRtg_SF at +4.
 * - Model 123 (immediate controls, L 24): Conn_WinTms +2, Conn_RvrtTms +3, Conn +4, WMaxLimPct +5,
 *   WMaxLimPct_WinTms +6, WMaxLimPct_RvrtTms +7, WMaxLimPct_RmpTms +8, WMaxLim_Ena +9,
 *   WMaxLimPct_SF +23. After WMaxLimPct_RvrtTms seconds without a new write the limit is cancelled.
 * - Model 704 (DER AC controls, L 65): WMaxLimPctEna +14, WMaxLimPct +15, WMaxLimPctRvrt +16,
 *   WMaxLimPctEnaRvrt +17, WMaxLimPctRvrtTms (uint32) +18, WMaxLimPctRvrtRem (uint32) +20,
 *   WMaxLimPct_SF +54. When the revert timer runs out the device takes WMaxLimPctRvrt and
 *   WMaxLimPctEnaRvrt.
 *
 * Unimplemented values (SunSpec: int16 0x8000, uint16 0xFFFF, sunssf 0x8000) read as null.
 */

export const SUNS_MARKER = [0x5375, 0x6e53] as const;
export const SUNSPEC_BASES = [40000, 50000, 0] as const;
export const END_MODEL_ID = 0xffff;

export const M103 = { W: 14, W_SF: 15 } as const;
export const M120 = { WRtg: 3, WRtg_SF: 4 } as const;
export const M123 = {
  LENGTH: 24,
  WMaxLimPct: 5,
  WMaxLimPct_WinTms: 6,
  WMaxLimPct_RvrtTms: 7,
  WMaxLimPct_RmpTms: 8,
  WMaxLim_Ena: 9,
  WMaxLimPct_SF: 23,
} as const;
export const M704 = {
  LENGTH: 65,
  WMaxLimPctEna: 14,
  WMaxLimPct: 15,
  WMaxLimPctRvrt: 16,
  WMaxLimPctEnaRvrt: 17,
  WMaxLimPctRvrtTms: 18,
  WMaxLimPctRvrtRem: 20,
  WMaxLimPct_SF: 54,
} as const;

/** Model id -> address of its ID register. */
export type ModelMap = ReadonlyMap<number, number>;

/** An int16 register value, null for SunSpec's unimplemented value 0x8000. */
export function int16(word: number | undefined): number | null {
  if (word === undefined || word === 0x8000) return null;
  return word >= 0x8000 ? word - 0x10000 : word;
}

/** A uint16 register value, null for 0xFFFF. */
export function uint16(word: number | undefined): number | null {
  return word === undefined || word === 0xffff ? null : word;
}

/** A scale factor (sunssf, -10..10), null when unimplemented (0x8000) or out of range. */
export function sunssf(word: number | undefined): number | null {
  const value = int16(word);
  return value === null || value < -10 || value > 10 ? null : value;
}

/** value × 10^sf, rounded to the digits the scale factor has (no binary noise in 16.000000001). */
export function scaled(raw: number, sf: number): number {
  const value = raw * 10 ** sf;
  return sf < 0 ? Number(value.toFixed(-sf)) : value;
}

/** The raw register value for `percent` at scale factor `sf`, clamped to 0..100 %. */
export function rawPercent(percent: number, sf: number): number {
  const bounded = Math.min(100, Math.max(0, percent));
  return Math.round(bounded / 10 ** sf);
}

/** One FC16 block: start address and its words. */
export interface RegisterWrite {
  address: number;
  words: number[];
}

/**
 * Model 123: WMaxLimPct, WMaxLimPct_WinTms 0 (at once), WMaxLimPct_RvrtTms, WMaxLimPct_RmpTms 0,
 * WMaxLim_Ena 1, in one FC16 block from WMaxLimPct (five consecutive points).
 */
export function model123Limit(
  modelAddress: number,
  percent: number,
  sf: number,
  revertS: number,
): RegisterWrite {
  return {
    address: modelAddress + M123.WMaxLimPct,
    words: [rawPercent(percent, sf), 0, clampWord(revertS), 0, 1],
  };
}

/** Model 123: WMaxLim_Ena 0, the limit cancelled (the inverter runs at its own maximum). */
export function model123Cancel(modelAddress: number): RegisterWrite {
  return { address: modelAddress + M123.WMaxLim_Ena, words: [0] };
}

/**
 * Model 704: WMaxLimPctEna 1, WMaxLimPct, WMaxLimPctRvrt (`safePercent`), WMaxLimPctEnaRvrt 1,
 * WMaxLimPctRvrtTms (uint32, high word first), in one FC16 block from WMaxLimPctEna.
 */
export function model704Limit(
  modelAddress: number,
  percent: number,
  safePercent: number,
  sf: number,
  revertS: number,
): RegisterWrite {
  const seconds = Math.max(0, Math.min(0xffffffff, Math.round(revertS)));
  return {
    address: modelAddress + M704.WMaxLimPctEna,
    words: [
      1,
      rawPercent(percent, sf),
      rawPercent(safePercent, sf),
      1,
      Math.floor(seconds / 0x10000),
      seconds % 0x10000,
    ],
  };
}

/** Model 704: WMaxLimPctEna 0. */
export function model704Cancel(modelAddress: number): RegisterWrite {
  return { address: modelAddress + M704.WMaxLimPctEna, words: [0] };
}

function clampWord(value: number): number {
  return Math.max(0, Math.min(0xfffe, Math.round(value)));
}

/**
 * Walks the model list from `base` (the register after the "SunS" marker): reads each model's ID
 * and L with `read`, at most `maxModels` of them, until the end marker or a read past 0xFFFF.
 */
export async function walkModels(
  read: (address: number, count: number) => Promise<number[]>,
  base: number,
  maxModels = 64,
): Promise<Map<number, number>> {
  const models = new Map<number, number>();
  let address = base + 2;
  for (let index = 0; index < maxModels && address + 2 <= 0xffff; index++) {
    const [id, length] = await read(address, 2);
    if (id === undefined || length === undefined || id === END_MODEL_ID || id === 0) break;
    if (!models.has(id)) models.set(id, address);
    address += 2 + length;
  }
  return models;
}
