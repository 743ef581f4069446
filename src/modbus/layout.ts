import { REGISTER_IDS } from './register-ids.js';

/**
 * The Modbus register layout (the whatwatt Go's Modbus register configuration): register sets
 * with a 0-based start address, a word order and registers that follow one another by size.
 */

export const NUMERIC_TYPES = ['double', 'float', 'long', 'int', 'short'] as const;
export type NumericType = (typeof NUMERIC_TYPES)[number];
export type WordOrder = 'msw' | 'lsw';

/** Numeric types: words per type. */
export const WORDS_OF_TYPE: Readonly<Record<NumericType, number>> = {
  short: 1,
  int: 2,
  float: 2,
  long: 4,
  double: 4,
};

/** Input register addresses 0..9998 (0-based), i.e. 9999 registers. */
export const REGISTER_COUNT = 9999;
export const MAX_ADDRESS = REGISTER_COUNT - 1;

/** A register of the compact form; numeric ids carry type and scaler, byte arrays only the id. */
export interface CompactRegister {
  id: string;
  type?: NumericType;
  scaler?: number;
}

/** Compact form (the device API's default form): what GET returns and POST accepts. */
export interface CompactSet {
  start_address: number;
  word_order: WordOrder;
  registers: CompactRegister[];
}
export type CompactLayout = CompactSet[];

export type AddressFormat = 'dec' | 'hex';
export type RenderedAddress = number | string;

export interface DetailedRegister extends CompactRegister {
  address: RenderedAddress;
  size: number;
}

/** Detailed form: end_address = start_address + size (exclusive, docs/architecture.md#modbus-layout-api). */
export interface DetailedSet {
  start_address: RenderedAddress;
  end_address: RenderedAddress;
  size: number;
  word_order: WordOrder;
  registers: DetailedRegister[];
}

/** Words a register occupies: byte arrays by their fixed size, numbers by their type. */
export function wordsOf(register: CompactRegister): number {
  const definition = REGISTER_IDS.get(register.id);
  if (definition?.kind === 'bytes') return definition.bytes / 2;
  return WORDS_OF_TYPE[register.type ?? 'double'];
}

export function setSize(set: CompactSet): number {
  let size = 0;
  for (const register of set.registers) size += wordsOf(register);
  return size;
}

/** docs/architecture.md#modbus-layout-api: hex addresses are strings of 4 upper-case hex digits, "0x0037". */
export function renderAddress(address: number, format: AddressFormat): RenderedAddress {
  return format === 'hex' ? `0x${address.toString(16).toUpperCase().padStart(4, '0')}` : address;
}

export function toDetailed(layout: CompactLayout, format: AddressFormat): DetailedSet[] {
  return layout.map((set) => {
    let address = set.start_address;
    const registers = set.registers.map((register): DetailedRegister => {
      const size = wordsOf(register);
      const detailed: DetailedRegister = { ...register, address: renderAddress(address, format), size };
      address += size;
      return detailed;
    });
    return {
      start_address: renderAddress(set.start_address, format),
      end_address: renderAddress(address, format),
      size: address - set.start_address,
      word_order: set.word_order,
      registers,
    };
  });
}

type Group = [type: NumericType, scaler: number, ids: readonly string[]];

function set(startAddress: number, groups: readonly Group[]): CompactSet {
  const registers = groups.flatMap(([type, scaler, ids]) => ids.map((id) => ({ id, type, scaler })));
  return { start_address: startAddress, word_order: 'msw', registers };
}

const padding = (count: number): string[] => Array.from({ length: count }, () => '0');

/**
 * The whatwatt Go's default register layout (word order msw), shaped like a common industrial three-phase
 * meter. Sizes: 42, 16, 16, 20, 8 and 160 words.
 */
export const DEFAULT_LAYOUT: CompactLayout = [
  set(1, [
    [
      'float',
      0,
      ['32.7.0', '52.7.0', '72.7.0', ...padding(3), 'current.l1', 'current.l2', 'current.l3', ...padding(3)],
    ],
    ['float', 3, ['power.active.l1', 'power.active.l2', 'power.active.l3']],
    ['float', 3, ['power.reactive.l1', 'power.reactive.l2', 'power.reactive.l3']],
    ['float', 0, padding(3)],
  ]),
  set(55, [
    ['float', 0, padding(4)],
    ['float', 3, ['9.7.0', 'power.active', 'power.reactive', '13.7.0']],
  ]),
  set(205, [['int', 0, [...padding(3), '96.14.0', ...padding(4)]]]),
  set(501, [
    ['float', 3, ['1.7.0', '3.7.0', '2.7.0', '4.7.0']],
    ['float', 0, padding(4)],
    ['int', 0, padding(2)],
  ]),
  set(549, [['float', 3, ['1.8.0', '3.8.0', '2.8.0', '4.8.0']]]),
  set(801, [
    ['double', 3, ['1.8.1', '1.8.2', '2.8.1', '2.8.2', '3.8.1', '3.8.2', '4.8.1', '4.8.2']],
    ['double', 0, padding(32)],
  ]),
];
