import { EventEmitter } from 'node:events';
import { D0RequestSession, type D0SessionOptions } from '../d0/session.js';
import { SerialLink } from '../../serial/serial-link.js';
import { formatLine, type LineSettings } from '../../serial/line-settings.js';
import type { MessageRef, ReadingTransport, ReadingTransportEvents } from './transport.js';

/**
 * `serial:/dev/...?protocol=d0` in request mode: the IEC 62056-21 request session (sign-on at
 * 300 Bd 7E1, identification, option select, rate change after the ACK has been sent, readout with
 * BCC) runs over the port every poll interval and hands over whole readings. Every byte the meter
 * sends is passed on as 'raw' too (byte counter, meter proxy, watchdog).
 */
export class D0RequestTransport extends EventEmitter<ReadingTransportEvents> implements ReadingTransport {
  private link: SerialLink | undefined;
  private session: D0RequestSession | undefined;

  constructor(
    readonly path: string,
    readonly line: LineSettings,
    private readonly sessionOptions: D0SessionOptions,
  ) {
    super();
  }

  get descriptionKey(): MessageRef {
    const seconds = (this.sessionOptions.pollIntervalMs ?? 60_000) / 1000;
    return { key: 'source.d0_request', args: { path: this.path, line: formatLine(this.line), seconds } };
  }

  get description(): string {
    const seconds = (this.sessionOptions.pollIntervalMs ?? 60_000) / 1000;
    return `serial:${this.path} (IEC 62056-21 request from ${formatLine(this.line)}, every ${seconds} s)`;
  }

  async open(): Promise<void> {
    const link = await SerialLink.open(this.path, this.line);
    const session = new D0RequestSession(link, { initialBaud: this.line.baudRate, ...this.sessionOptions });
    this.link = link;
    this.session = session;
    link.on('data', (chunk) => {
      session.receive(chunk);
      this.emit('raw', chunk);
    });
    link.on('close', (reason) => this.fail(link, reason ?? new Error('port closed')));
    session.on('reading', (reading) => this.emit('reading', reading));
    session.on('rejected', (error) => this.emit('reject', error));
    // A write or rate change the port refused: the device is gone or unusable; reopen it.
    session.on('link-error', (error) => this.fail(link, error));
    session.start();
  }

  private fail(link: SerialLink, reason: Error): void {
    if (this.link !== link) return;
    void this.close().then(() => this.emit('close', reason));
  }

  async close(): Promise<void> {
    const link = this.link;
    const session = this.session;
    this.link = undefined;
    this.session = undefined;
    const stopped = session?.stop();
    await link?.close();
    await stopped;
    session?.removeAllListeners();
  }
}
