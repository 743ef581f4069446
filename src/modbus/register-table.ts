import { PHASES } from '../reading/phases.js';
import { QUANTITIES } from '../reading/quantities.js';
import { REGISTER_IDS } from './register-ids.js';
import { wordsOf, type CompactLayout } from './layout.js';
import type { ModbusTableView, RegisterSetView } from '../contracts/modbus-table.js';

const BY_OBIS = new Map(QUANTITIES.map((quantity) => [quantity.obis, quantity]));
const unitOf = (obis: string): string => BY_OBIS.get(obis)?.unit ?? '';

/** Names and units of the register ids that are no OBIS quantity of their own. */
const OWN_NAMES: ReadonlyMap<string, { name: string; unit: string }> = new Map([
  ['0', { name: 'fill 0x0000', unit: '' }],
  ['1', { name: 'fill 0xFFFF', unit: '' }],
  ['power.active', { name: 'Active power, import minus export', unit: unitOf('1.7.0') }],
  ['power.reactive', { name: 'Reactive power, import minus export', unit: unitOf('3.7.0') }],
  ...PHASES.flatMap((phase): Array<[string, { name: string; unit: string }]> => {
    const line = phase.line.toUpperCase();
    return [
      [
        `power.active.${phase.line}`,
        { name: `Active power ${line}, import minus export`, unit: unitOf(phase.activeImport) },
      ],
      [
        `power.reactive.${phase.line}`,
        { name: `Reactive power ${line}, import minus export`, unit: unitOf(phase.reactiveImport) },
      ],
      [
        `current.${phase.line}`,
        { name: `Current ${line}, negative while exporting`, unit: unitOf(phase.current) },
      ],
    ];
  }),
  ['96.14.0', { name: 'Tariff', unit: '' }],
  ['conv_factor', { name: 'Conversion factor', unit: '' }],
  ['report.timestamp', { name: 'Reading time (Unix)', unit: 's' }],
  ['sys.timestamp', { name: 'Gateway time (Unix)', unit: 's' }],
  ['report.date_time', { name: 'Reading date and time', unit: '' }],
  ['sys.date_time', { name: 'Gateway date and time', unit: '' }],
  ['96.1.0', { name: 'Meter id (ASCII)', unit: '' }],
  ['96.1.1', { name: 'Meter model (ASCII)', unit: '' }],
  ['42.0.0', { name: 'Logical device name (ASCII)', unit: '' }],
  ['sys.id', { name: 'Gateway id', unit: '' }],
  ['sys.firmware', { name: 'Gateway firmware version', unit: '' }],
]);

function describe(id: string): { name: string; unit: string } {
  const own = OWN_NAMES.get(id);
  if (own) return own;
  const quantity = BY_OBIS.get(id);
  return quantity ? { name: quantity.name, unit: quantity.unit } : { name: id, unit: '' };
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
