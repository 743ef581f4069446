import {
  MAX_ADDRESS,
  NUMERIC_TYPES,
  REGISTER_COUNT,
  setSize,
  wordsOf,
  type CompactLayout,
  type CompactRegister,
  type CompactSet,
  type NumericType,
} from './layout.js';
import { REGISTER_IDS } from './register-ids.js';

/**
 * Validation of a posted register layout (the whatwatt Go API's Modbus register configuration and
 * its limits): known ids only, type and scaler for numeric ids only, timestamps as int, start_address
 * 0..9998, no set past address 9998 and no two sets sharing an address. Every issue names the
 * offending set (index in the array) and, where one is to blame, the register (index in the set).
 */

export interface LayoutIssue {
  set?: number;
  register?: number;
  field: string;
  message: string;
  value?: unknown;
  /** For overlaps: the index of the other set. */
  other_set?: number;
}

export type LayoutValidation = { ok: true; layout: CompactLayout } | { ok: false; issues: LayoutIssue[] };

const SET_FIELDS = new Set(['start_address', 'word_order', 'registers', 'end_address', 'size']);
const REGISTER_FIELDS = new Set(['id', 'type', 'scaler', 'address', 'size']);

type Report = (issue: LayoutIssue) => void;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An address as the dec (number) or hex ("0x0037") detailed form writes it; undefined if neither. */
function parseAddress(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{1,4}$/.test(value))
    return Number.parseInt(value.slice(2), 16);
  return undefined;
}

function checkUnknownFields(
  raw: Record<string, unknown>,
  allowed: Set<string>,
  where: LayoutIssue,
  report: Report,
): void {
  for (const field of Object.keys(raw)) {
    if (!allowed.has(field)) report({ ...where, field, message: 'unknown field' });
  }
}

function validateNumericOptions(
  raw: Record<string, unknown>,
  id: string,
  timestamp: boolean,
  where: LayoutIssue,
  report: Report,
): CompactRegister {
  let type: NumericType = timestamp ? 'int' : 'double';
  if (raw.type !== undefined) {
    if (typeof raw.type === 'string' && (NUMERIC_TYPES as readonly string[]).includes(raw.type))
      type = raw.type as NumericType;
    else
      report({
        ...where,
        field: 'type',
        message: `must be one of ${NUMERIC_TYPES.join(', ')}`,
        value: raw.type,
      });
  }
  if (timestamp && type !== 'int')
    report({ ...where, field: 'type', message: 'a timestamp register must use type int', value: raw.type });
  let scaler = 0;
  if (raw.scaler !== undefined) {
    const valid =
      typeof raw.scaler === 'number' && Number.isInteger(raw.scaler) && raw.scaler >= -6 && raw.scaler <= 6;
    if (valid) scaler = raw.scaler as number;
    else report({ ...where, field: 'scaler', message: 'must be an integer in -6..6', value: raw.scaler });
  }
  return { id, type, scaler };
}

function validateRegister(raw: unknown, where: LayoutIssue, report: Report): CompactRegister | undefined {
  if (!isRecord(raw)) {
    report({ ...where, field: 'registers', message: 'a register must be an object with an id' });
    return undefined;
  }
  checkUnknownFields(raw, REGISTER_FIELDS, where, report);
  const definition = typeof raw.id === 'string' ? REGISTER_IDS.get(raw.id) : undefined;
  if (typeof raw.id !== 'string' || definition === undefined) {
    report({ ...where, field: 'id', message: 'unknown register id', value: raw.id });
    return undefined;
  }
  if (definition.kind !== 'bytes') {
    const timestamp = definition.kind === 'numeric' && definition.timestamp;
    return validateNumericOptions(raw, raw.id, timestamp, where, report);
  }
  for (const field of ['type', 'scaler'] as const) {
    if (raw[field] !== undefined) {
      report({
        ...where,
        field,
        message: `not allowed for the byte-array id ${raw.id} (${definition.bytes} bytes)`,
        value: raw[field],
      });
    }
  }
  return { id: raw.id };
}

/** Detailed-form fields sent back must agree with what the layout implies. */
function checkDetailedFields(
  raw: Record<string, unknown>,
  expected: { address: number; size: number },
  addressField: string,
  where: LayoutIssue,
  report: Report,
): void {
  if (raw[addressField] !== undefined && parseAddress(raw[addressField]) !== expected.address) {
    report({
      ...where,
      field: addressField,
      message: `must be ${expected.address} when given`,
      value: raw[addressField],
    });
  }
  if (raw.size !== undefined && raw.size !== expected.size) {
    report({ ...where, field: 'size', message: `must be ${expected.size} when given`, value: raw.size });
  }
}

function validateSet(raw: unknown, index: number, report: Report): CompactSet | undefined {
  const where: LayoutIssue = { set: index, field: '', message: '' };
  if (!isRecord(raw)) {
    report({
      ...where,
      field: 'set',
      message: 'a register set must be an object with start_address and registers',
    });
    return undefined;
  }
  checkUnknownFields(raw, SET_FIELDS, where, report);
  const start = parseAddress(raw.start_address);
  const startValid = start !== undefined && start >= 0 && start <= MAX_ADDRESS;
  if (!startValid)
    report({
      ...where,
      field: 'start_address',
      message: `must be an integer in 0..${MAX_ADDRESS}`,
      value: raw.start_address,
    });
  const wordOrder = raw.word_order ?? 'msw';
  if (wordOrder !== 'msw' && wordOrder !== 'lsw')
    report({ ...where, field: 'word_order', message: 'must be msw or lsw', value: raw.word_order });
  if (!Array.isArray(raw.registers) || raw.registers.length === 0) {
    report({ ...where, field: 'registers', message: 'must be a non-empty array of registers' });
    return undefined;
  }
  const registers: CompactRegister[] = [];
  let address = start ?? 0;
  raw.registers.forEach((rawRegister: unknown, register) => {
    const valid = validateRegister(rawRegister, { set: index, register, field: '', message: '' }, report);
    if (!valid) return;
    const size = wordsOf(valid);
    if (startValid && isRecord(rawRegister))
      checkDetailedFields(
        rawRegister,
        { address, size },
        'address',
        { set: index, register, field: '', message: '' },
        report,
      );
    address += size;
    registers.push(valid);
  });
  if (
    start === undefined ||
    !startValid ||
    registers.length !== raw.registers.length ||
    (wordOrder !== 'msw' && wordOrder !== 'lsw')
  )
    return undefined;
  const set: CompactSet = { start_address: start, word_order: wordOrder, registers };
  checkDetailedFields(
    raw,
    { address: start + setSize(set), size: setSize(set) },
    'end_address',
    where,
    report,
  );
  return set;
}

/** Index of the first register of `set` that covers any address in [from, to). */
function firstRegisterIn(set: CompactSet, from: number, to: number): number {
  let address = set.start_address;
  for (let i = 0; i < set.registers.length; i++) {
    const end = address + wordsOf(set.registers[i]!);
    if (address < to && end > from) return i;
    address = end;
  }
  return set.registers.length - 1;
}

function checkExtents(sets: ReadonlyArray<{ index: number; set: CompactSet }>, report: Report): void {
  const extents = sets.map(({ index, set }) => ({
    index,
    set,
    start: set.start_address,
    end: set.start_address + setSize(set),
  }));
  for (const extent of extents) {
    if (extent.end > REGISTER_COUNT) {
      const register = firstRegisterIn(extent.set, REGISTER_COUNT, Infinity);
      report({
        set: extent.index,
        register,
        field: 'registers',
        message: `the set ends at ${extent.end - 1}, past address ${MAX_ADDRESS}`,
      });
    }
  }
  const sorted = [...extents].sort((a, b) => a.start - b.start || a.index - b.index);
  let reach = sorted[0];
  for (const extent of sorted.slice(1)) {
    if (reach && extent.start < reach.end) {
      const [later, other] = extent.index > reach.index ? [extent, reach] : [reach, extent];
      const register = firstRegisterIn(later.set, other.start, other.end);
      report({
        set: later.index,
        register,
        other_set: other.index,
        field: 'start_address',
        message: `overlaps set ${other.index} (addresses ${other.start}..${other.end - 1})`,
      });
    }
    if (!reach || extent.end > reach.end) reach = extent;
  }
}

/** Validates a layout in compact or detailed form; on success returns it normalised to compact. */
export function validateLayout(input: unknown): LayoutValidation {
  const issues: LayoutIssue[] = [];
  const report: Report = (issue) => issues.push(issue);
  if (!Array.isArray(input))
    return { ok: false, issues: [{ field: 'layout', message: 'must be an array of register sets' }] };
  if (input.length === 0)
    return { ok: false, issues: [{ field: 'layout', message: 'must contain at least one register set' }] };
  const valid: Array<{ index: number; set: CompactSet }> = [];
  input.forEach((raw: unknown, index) => {
    const set = validateSet(raw, index, report);
    if (set) valid.push({ index, set });
  });
  checkExtents(valid, report);
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, layout: valid.map(({ set }) => set) };
}

/** One line per issue, for logs and the config file validator. */
export function describeIssues(issues: readonly LayoutIssue[]): string {
  return issues
    .map((issue) => {
      const where = [
        issue.set !== undefined ? `set ${issue.set}` : '',
        issue.register !== undefined ? `register ${issue.register}` : '',
        issue.field,
      ]
        .filter(Boolean)
        .join(' ');
      return `${where}: ${issue.message}${issue.value !== undefined ? ` (value ${JSON.stringify(issue.value)})` : ''}`;
    })
    .join('; ');
}
