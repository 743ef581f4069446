import { PHASES } from '../reading/phases.js';
import { QUANTITIES } from '../reading/quantities.js';
import { REGISTER_IDS } from './register-ids.js';
import { wordsOf, type CompactLayout } from './layout.js';
import type { ModbusTableView, RegisterSetView } from '../contracts/modbus-table.js';

const BY_OBIS = new Map(QUANTITIES.map((quantity) => [quantity.obis, quantity]));
const unitOf = (obis: string): string => BY_OBIS.get(obis)?.unit ?? '';

type Args = Record<string, string>;
interface Described {
  name: string;
  unit: string;
  /** The name's message key and its arguments (docs/architecture.md#server-message-keys). */
  name_key: string;
  name_args?: Args;
}

const own = (name: string, unit: string, key: string, args?: Args): Described => ({
  name,
  unit,
  name_key: `modbus.register.${key}`,
  ...(args ? { name_args: args } : {}),
});

/** Names and units of the register ids that are no OBIS quantity of their own. */
const OWN_NAMES: ReadonlyMap<string, Described> = new Map([
  ['0', own('fill 0x0000', '', 'fill', { value: '0x0000' })],
  ['1', own('fill 0xFFFF', '', 'fill', { value: '0xFFFF' })],
  ['power.active', own('Active power, import minus export', unitOf('1.7.0'), 'active_net')],
  ['power.reactive', own('Reactive power, import minus export', unitOf('3.7.0'), 'reactive_net')],
  ...PHASES.flatMap((phase): Array<[string, Described]> => {
    const line = phase.line.toUpperCase();
    const args = { phase: line };
    return [
      [
        `power.active.${phase.line}`,
        own(
          `Active power ${line}, import minus export`,
          unitOf(phase.activeImport),
          'active_net_phase',
          args,
        ),
      ],
      [
        `power.reactive.${phase.line}`,
        own(
          `Reactive power ${line}, import minus export`,
          unitOf(phase.reactiveImport),
          'reactive_net_phase',
          args,
        ),
      ],
      [
        `current.${phase.line}`,
        own(`Current ${line}, negative while exporting`, unitOf(phase.current), 'current_signed', args),
      ],
    ];
  }),
  ['96.14.0', own('Tariff', '', 'tariff')],
  ['conv_factor', own('Conversion factor', '', 'conversion_factor')],
  ['report.timestamp', own('Reading time (Unix)', 's', 'reading_time_unix')],
  ['sys.timestamp', own('Gateway time (Unix)', 's', 'gateway_time_unix')],
  ['report.date_time', own('Reading date and time', '', 'reading_date_time')],
  ['sys.date_time', own('Gateway date and time', '', 'gateway_date_time')],
  ['96.1.0', own('Meter id (ASCII)', '', 'meter_id')],
  ['96.1.1', own('Meter model (ASCII)', '', 'meter_model')],
  ['42.0.0', own('Logical device name (ASCII)', '', 'logical_device_name')],
  ['sys.id', own('Gateway id', '', 'gateway_id')],
  ['sys.firmware', own('Gateway firmware version', '', 'gateway_firmware')],
]);

/**
 * A quantity's name as its key: `quantity.<base name>` with the phase (L1..L3) or tariff (T1, T2)
 * the quantity table appends as the `suffix` argument, written alike in every language.
 */
function quantityKey(name: string): { name_key: string; name_args?: Args } {
  const [, base, suffix] = /^(.*?)(?: (L[1-3]|T[12]))?$/.exec(name) ?? [name, name, undefined];
  return { name_key: `quantity.${base}`, ...(suffix ? { name_args: { suffix } } : {}) };
}

function describe(id: string): { name: string; unit: string; name_key?: string; name_args?: Args } {
  const known = OWN_NAMES.get(id);
  if (known) return known;
  const quantity = BY_OBIS.get(id);
  return quantity
    ? { name: quantity.name, unit: quantity.unit, ...quantityKey(quantity.name) }
    : { name: id, unit: '' };
}

function typeOf(id: string, type: string | undefined): string {
  const kind = REGISTER_IDS.get(id)?.kind;
  if (kind === 'padding') return 'padding';
  if (kind === 'bytes') return 'bytes';
  return type ?? 'double';
}

/** The layout as rows of address, id, name, unit, type, scaler and width (the Modbus page's table). */
export function registerTable(layout: CompactLayout, source: ModbusTableView['source']): ModbusTableView {
  const sets = layout.map((set): RegisterSetView => {
    let address = set.start_address;
    const rows = set.registers.map((register) => {
      const words = wordsOf(register);
      const row = {
        address,
        id: register.id,
        ...describe(register.id),
        type: typeOf(register.id, register.type),
        scaler: register.scaler ?? 0,
        words,
      };
      address += words;
      return row;
    });
    return { start_address: set.start_address, word_order: set.word_order, rows };
  });
  return { source, sets };
}
