/** EN 13757-3 §8.4.1 device types: 03 gas, 04/0C heat, 06 warm water, 07 water, 15 hot, 16 cold water. */
export const MBUS_GAS = 0x03;
export const MBUS_WATER: ReadonlySet<number> = new Set([0x06, 0x07, 0x15, 0x16]);
export const MBUS_HEAT: ReadonlySet<number> = new Set([0x04, 0x0c]);
