import { readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/** A serial device found under the device directory. */
export interface SerialPortEntry {
  path: string;
  /** Where a serial/by-id link points. */
  target?: string;
  kind: 'by-id' | 'usb' | 'acm' | 'uart';
}

/** Names in the device directory that are serial ports, and what kind. */
const PORT_NAMES: ReadonlyArray<[RegExp, SerialPortEntry['kind']]> = [
  [/^ttyUSB\d+$/, 'usb'],
  [/^ttyACM\d+$/, 'acm'],
  [/^(ttyAMA0|serial0)$/, 'uart'],
];

function entriesOf(directory: string): string[] {
  try {
    return readdirSync(directory).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  } catch {
    return []; // absent (no USB serial adapter plugged in) or unreadable: nothing to offer
  }
}

/**
 * The serial ports present under `root` (normally /dev): the stable serial/by-id names first (they
 * survive replugging, ttyUSB numbers do not), then ttyUSB*, ttyACM*, and the Raspberry Pi's UART
 * (ttyAMA0, serial0). Links whose target is gone are left out.
 */
export function listSerialPorts(root: string): SerialPortEntry[] {
  const ports: SerialPortEntry[] = [];
  const byId = join(root, 'serial', 'by-id');
  for (const name of entriesOf(byId)) {
    const path = join(byId, name);
    try {
      ports.push({ path, target: realpathSync(path), kind: 'by-id' });
    } catch {
      // a dangling link: the adapter was unplugged
    }
  }
  for (const name of entriesOf(root)) {
    const kind = PORT_NAMES.find(([pattern]) => pattern.test(name))?.[1];
    if (kind) ports.push({ path: join(root, name), kind });
  }
  return ports;
}
