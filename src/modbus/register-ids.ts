import { meterView } from '../reading/meter-view.js';
import { PHASES } from '../reading/phases.js';
import type { SystemFacts } from '../reading/meter-state.js';
import { QUANTITIES, type Quantity } from '../reading/quantities.js';
import type { MeterIdentity, Reading } from '../reading/reading.js';
import { peakRegisterIds, type PeakSnapshotOrOff } from './peak-registers.js';
import { limiterRegisterIds } from './limiter-registers.js';
import type { LimiterStatus } from '../export-limiter/limiter.js';
import { writeAscii } from '../modbus-protocol/register-encodings.js';

/**
 * The register identifiers of the whatwatt Go's Modbus register configuration: what each one reads and
 * how wide it is. Numeric OBIS ids are the `obis` keys of the one quantity table; the rest are the
 * device's signed aliases, timestamps, tariff, conversion factor and byte arrays ("hex" ids).
 */

/** Everything a register value can come from, captured once per image rebuild. */
export interface ValueSource {
  /**
   * Latest fresh reading; undefined before the first one and while stale (docs/architecture.md#staleness).
   */
  reading: Reading | undefined;
  /** Meter identity as far as known (kept while the values are stale). */
  identity: MeterIdentity;
  system: SystemFacts;
  /** meter.conv_factor setting. */
  convFactor: number;
  /** Wall clock ms of the rebuild (sys.timestamp, sys.date_time). */
  now: number;
  /** The peak guard's snapshot for the `peak.*` ids (./peak-registers.ts); absent: they read NaN / 0. */
  peak?: () => PeakSnapshotOrOff | undefined;
  /** The export limiter's status for the `limiter.*` ids (./limiter-registers.ts); absent: they read NaN / 0. */
  limiter?: () => LimiterStatus | undefined;
}

export type NumericResolver = (source: ValueSource) => number | undefined;
/** Fills `target` (already zeroed, exactly the id's byte size). */
export type BytesWriter = (source: ValueSource, target: Buffer) => void;

export type RegisterDefinition =
  /** Padding: id 0 reads 0x0000, id 1 reads 0xFFFF in every word (docs/architecture.md#modbus-layout-api). */
  | { kind: 'padding'; fill: 0x00 | 0xff }
  /**
   * Numeric value in a numeric type; `timestamp` ones must use type int (as on the device). `counter`:
   * an energy counter of the quantity table, which keeps its last valid value while the reading is
   * stale (docs/architecture.md#staleness).
   */
  | { kind: 'numeric'; value: NumericResolver; timestamp: boolean; clock: boolean; counter: boolean }
  /** Byte array of a fixed size (the device's "hex" ids). */
  | { kind: 'bytes'; bytes: number; write: BytesWriter; clock: boolean };

const obisValue =
  (obis: string): NumericResolver =>
  (source) =>
    source.reading?.values.get(obis)?.value;

/** Import minus export; undefined only when the meter sent neither direction. */
const difference =
  (positive: string, negative: string): NumericResolver =>
  (source) => {
    const values = source.reading?.values;
    const plus = values?.get(positive)?.value;
    const minus = values?.get(negative)?.value;
    if (plus === undefined && minus === undefined) return undefined;
    return (plus ?? 0) - (minus ?? 0);
  };

/** 31.7.0, 51.7.0, 71.7.0 are unsigned currents (magnitudes, as the meters send them). */
const unsignedCurrent =
  (obis: string): NumericResolver =>
  (source) => {
    const value = source.reading?.values.get(obis)?.value;
    return value === undefined ? undefined : Math.abs(value);
  };

/**
 * current.lN: the signed current of the reading's meter view (the one rule of phases.ts; the MQTT
 * template's s31_7_0 reads the same).
 */
const phaseCurrent =
  (index: number): NumericResolver =>
  (source) =>
    source.reading ? (meterView(source.reading).phases[index]!.a ?? undefined) : undefined;

const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

/** Time of the reading: the meter's own timestamp when it sent one, else the receive time. */
function readingTime(reading: Reading): number {
  const meterTime = reading.meterTime === undefined ? NaN : Date.parse(reading.meterTime);
  return Number.isFinite(meterTime) ? meterTime : reading.receivedAt;
}

/** DST is active when the zone's offset now is the smaller (eastward larger) of January's and July's. */
function isDaylightSaving(date: Date): boolean {
  const year = date.getFullYear();
  const january = new Date(year, 0, 1).getTimezoneOffset();
  const july = new Date(year, 6, 1).getTimezoneOffset();
  return january !== july && date.getTimezoneOffset() === Math.min(january, july);
}

/**
 * Date-time layout of the device's Modbus registers: year high, year low, month (1..12), day (1..31),
 * hour (0..23), minute, second, DST flag (1 when active); local time of the process.
 */
export function writeDateTime(ms: number, target: Buffer): void {
  const date = new Date(ms);
  target.writeUInt16BE(date.getFullYear(), 0);
  target[2] = date.getMonth() + 1;
  target[3] = date.getDate();
  target[4] = date.getHours();
  target[5] = date.getMinutes();
  target[6] = date.getSeconds();
  target[7] = isDaylightSaving(date) ? 1 : 0;
}

/** System ID, 6 bytes (its 12 hex digits). */
function writeSystemId(source: ValueSource, target: Buffer): void {
  if (/^[0-9a-fA-F]{12}$/.test(source.system.id)) Buffer.from(source.system.id, 'hex').copy(target);
}

/** Firmware version, major, minor and release in the first three of 6 bytes. */
function writeFirmware(source: ValueSource, target: Buffer): void {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(source.system.firmware);
  if (!match) return;
  for (let i = 0; i < 3; i++) target[i] = Math.min(255, Number(match[i + 1]));
}

function numeric(
  value: NumericResolver,
  options: { timestamp?: boolean; clock?: boolean; counter?: boolean } = {},
): RegisterDefinition {
  return {
    kind: 'numeric',
    value,
    timestamp: options.timestamp ?? false,
    clock: options.clock ?? false,
    counter: options.counter ?? false,
  };
}

/** Energy registers (Home Assistant's total classes) count up; everything else is instantaneous. */
const isCounter = (quantity: Quantity): boolean => quantity.ha.stateClass !== 'measurement';

function buildCatalogue(): Map<string, RegisterDefinition> {
  const ids = new Map<string, RegisterDefinition>([
    ['0', { kind: 'padding', fill: 0x00 }],
    ['1', { kind: 'padding', fill: 0xff }],
  ]);
  for (const quantity of QUANTITIES)
    ids.set(quantity.obis, numeric(obisValue(quantity.obis), { counter: isCounter(quantity) }));
  ids.set('power.active', numeric(difference('1.7.0', '2.7.0')));
  ids.set('power.reactive', numeric(difference('3.7.0', '4.7.0')));
  for (const [index, phase] of PHASES.entries()) {
    ids.set(phase.current, numeric(unsignedCurrent(phase.current)));
    ids.set(`power.active.${phase.line}`, numeric(difference(phase.activeImport, phase.activeExport)));
    ids.set(`power.reactive.${phase.line}`, numeric(difference(phase.reactiveImport, phase.reactiveExport)));
    ids.set(`current.${phase.line}`, numeric(phaseCurrent(index)));
  }
  ids.set(
    '96.14.0',
    numeric((source) => source.reading?.tariff ?? source.reading?.values.get('96.14.0')?.value),
  );
  ids.set(
    'conv_factor',
    numeric((source) => source.convFactor),
  );
  ids.set(
    'report.timestamp',
    numeric((source) => (source.reading ? unixSeconds(readingTime(source.reading)) : undefined), {
      timestamp: true,
    }),
  );
  ids.set(
    'sys.timestamp',
    numeric((source) => unixSeconds(source.now), { timestamp: true, clock: true }),
  );

  const bytes = (size: number, write: BytesWriter, clock = false): RegisterDefinition => ({
    kind: 'bytes',
    bytes: size,
    write,
    clock,
  });
  ids.set(
    'report.date_time',
    bytes(8, (source, target) => source.reading && writeDateTime(readingTime(source.reading), target)),
  );
  ids.set(
    'sys.date_time',
    bytes(8, (source, target) => writeDateTime(source.now, target), true),
  );
  ids.set(
    '96.1.0',
    bytes(24, (source, target) => writeAscii(source.identity.id, target)),
  );
  ids.set(
    '96.1.1',
    bytes(24, (source, target) => writeAscii(source.identity.model, target)),
  );
  ids.set(
    '42.0.0',
    bytes(24, (source, target) => writeAscii(source.identity.logicalName, target)),
  );
  ids.set('sys.id', bytes(6, writeSystemId));
  ids.set('sys.firmware', bytes(6, writeFirmware));
  for (const [id, value] of peakRegisterIds()) ids.set(id, numeric(value));
  for (const [id, value] of limiterRegisterIds()) ids.set(id, numeric(value));
  return ids;
}

/** Every register id the layout may name. */
export const REGISTER_IDS: ReadonlyMap<string, RegisterDefinition> = buildCatalogue();
