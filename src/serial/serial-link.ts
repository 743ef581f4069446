import { EventEmitter } from 'node:events';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SerialPort } from 'serialport';
import type { LineSettings } from './line-settings.js';

export interface SerialLinkEvents {
  data: [chunk: Buffer];
  /** The port went away (unplugged, pty closed); not emitted for close(). */
  close: [reason?: Error];
}

/** Where udev names every USB serial adapter by its id (a name that survives re-plugging). */
export const BY_ID_DIR = '/dev/serial/by-id';

/**
 * serialport's open failure in the words a user acts on. Its own text repeats the caller's
 * (`Error: No such file or directory, cannot open /dev/ttyUSB0`), so the ", cannot open <path>"
 * tail is dropped; a missing device lists the adapters present and points to the probe.
 */
export function openError(path: string, error: Error, byIdDir = BY_ID_DIR): Error {
  const text = error.message.replace(/^Error: /, '').replace(/, cannot open .*$/, '');
  if (!/No such file or directory|ENOENT/i.test(text)) return new Error(text, { cause: error });
  let adapters: string[] = [];
  try {
    adapters = readdirSync(byIdDir)
      .sort()
      .map((name) => join(byIdDir, name));
  } catch {
    // no USB serial adapter at all: udev creates the folder with the first one
  }
  const present =
    adapters.length > 0
      ? `serial adapters present: ${adapters.join(', ')}`
      : `no USB serial adapter present (${byIdDir} is empty)`;
  const probe = adapters[0] ?? '<device>';
  return new Error(
    `no such device; ${present}; find the meter's port and settings with 'meter-gateway probe ${probe}' (or the Meter tab's probe in the web interface)`,
    { cause: error },
  );
}

/**
 * An open serial port (npm serialport) as the meter transports, the probe and the Modbus RTU slave use it: bytes in, writes
 * that resolve once transmitted, rate changes on the open port, and a close event when the device
 * disappears. serialport reports an unplugged USB adapter or a vanished pty as a 'close' with
 * `disconnected`; a far end that merely stops sending gives no event at all (the meter input's
 * watchdog covers that).
 */
export class SerialLink extends EventEmitter<SerialLinkEvents> {
  private closing = false;

  private constructor(
    private readonly port: SerialPort,
    readonly path: string,
  ) {
    super();
    port.on('data', (chunk: Buffer) => this.emit('data', chunk));
    port.on('error', () => undefined);
    port.on('close', (error?: Error | null) => {
      if (!this.closing) this.emit('close', error ?? new Error('port closed'));
    });
  }

  /** Opens `path` with `line`; rejects when the device is absent, busy or refuses the settings. */
  static async open(path: string, line: LineSettings): Promise<SerialLink> {
    // Loaded with the first serial port (about 15 MB resident): TCP, file and simulator sources never need it.
    const { SerialPort } = await import('serialport');
    const port = new SerialPort({
      path,
      baudRate: line.baudRate,
      dataBits: line.dataBits,
      parity: line.parity,
      stopBits: line.stopBits,
      autoOpen: false,
    });
    await new Promise<void>((resolve, reject) =>
      port.open((error) => (error ? reject(openError(path, error)) : resolve())),
    );
    return new SerialLink(port, path);
  }

  get isOpen(): boolean {
    return this.port.isOpen && !this.closing;
  }

  /** Writes `bytes` and resolves once the driver has sent them at the current rate (drain). */
  write(bytes: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.port.write(bytes, (error) => {
        if (error) {
          reject(error);
          return;
        }
        this.port.drain((drainError) => (drainError ? reject(drainError) : resolve()));
      });
    });
  }

  /** Changes the rate of the open port, keeping the character framing. */
  setBaudRate(baudRate: number): Promise<void> {
    return new Promise((resolve, reject) =>
      this.port.update({ baudRate }, (error) => (error ? reject(error) : resolve())),
    );
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.removeAllListeners();
    if (!this.port.isOpen) return;
    await new Promise<void>((resolve) => this.port.close(() => resolve()));
  }
}
