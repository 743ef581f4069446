import { EventEmitter } from 'node:events';
import type { SerialSource } from '../source.js';
import { SerialLink } from '../../serial/serial-link.js';
import { formatLine, type LineSettings } from '../../serial/line-settings.js';
import type { ByteTransport, ByteTransportEvents } from './transport.js';

export type { SerialSource };

/** Line settings each protocol is specified with. */
export const PROTOCOL_LINES = {
  /** DSMR 4.x / 5.0 P1 (DSMR 5.0.2 §6.2): 115200 Bd, 8N1. */
  dsmr45: { baudRate: 115200, dataBits: 8, parity: 'none', stopBits: 1 },
  /** DSMR 2.2 / 3.0 P1: 9600 Bd, 7E1. */
  dsmr23: { baudRate: 9600, dataBits: 7, parity: 'even', stopBits: 1 },
  /** SML over the optical D0 interface (FNN Lastenheft EDL / SML 1.04): 9600 Bd, 8N1. */
  sml: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 },
  /** IEC 62056-21 §6.1: sign-on at 300 Bd, 7E1; the session switches rate after the option select. */
  d0Request: { baudRate: 300, dataBits: 7, parity: 'even', stopBits: 1 },
  /** IEC 62056-21 push meters (eHZ family, mode D style): 9600 Bd, 7E1 unless the URI says otherwise. */
  d0Push: { baudRate: 9600, dataBits: 7, parity: 'even', stopBits: 1 },
} as const satisfies Record<string, LineSettings>;

/** Whether an IEC 62056-21 serial source polls (sign-on) or listens. */
export function d0ModeOf(source: SerialSource): 'request' | 'push' {
  return source.d0Mode ?? 'request';
}

/**
 * Line settings of a serial source: the protocol's defaults, overridden by the URI's `baud`,
 * `databits`, `parity`, `stopbits`. For DSMR the rate picks the generation: up to 9600 Bd means
 * DSMR 2.2/3 (7E1), above it DSMR 4/5 (8N1). `protocol=auto` is resolved by the probe before a
 * transport is made; if asked anyway it starts from the DSMR 4/5 line.
 */
export function lineSettingsOf(source: SerialSource): LineSettings {
  let defaults: LineSettings;
  switch (source.protocol) {
    case 'sml':
      defaults = PROTOCOL_LINES.sml;
      break;
    case 'd0':
      defaults = d0ModeOf(source) === 'request' ? PROTOCOL_LINES.d0Request : PROTOCOL_LINES.d0Push;
      break;
    default:
      defaults =
        (source.baudRate ?? PROTOCOL_LINES.dsmr45.baudRate) <= 9600
          ? PROTOCOL_LINES.dsmr23
          : PROTOCOL_LINES.dsmr45;
  }
  return {
    baudRate: source.baudRate ?? defaults.baudRate,
    dataBits: source.dataBits ?? defaults.dataBits,
    parity: source.parity ?? defaults.parity,
    stopBits: source.stopBits ?? defaults.stopBits,
  };
}

/**
 * `serial:/dev/...` for meters that send by themselves (DSMR P1, SML, IEC 62056-21 push): bytes
 * as the port delivers them. An absent device makes open() reject; an unplugged one ends in
 * 'close'. Either way the meter input reopens with backoff.
 */
export class SerialTransport extends EventEmitter<ByteTransportEvents> implements ByteTransport {
  private link: SerialLink | undefined;

  constructor(
    readonly path: string,
    readonly line: LineSettings,
  ) {
    super();
  }

  get description(): string {
    return `serial:${this.path} (${formatLine(this.line)})`;
  }

  async open(): Promise<void> {
    const link = await SerialLink.open(this.path, this.line);
    this.link = link;
    link.on('data', (chunk) => this.emit('data', chunk));
    link.on('close', (reason) => {
      if (this.link !== link) return;
      this.link = undefined;
      this.emit('close', reason);
    });
  }

  async close(): Promise<void> {
    const link = this.link;
    this.link = undefined;
    await link?.close();
  }
}
