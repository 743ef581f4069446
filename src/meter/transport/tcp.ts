import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';
import type { ByteTransport, ByteTransportEvents } from './transport.js';
import { systemClock, type Clock } from '../../clock.js';

/** TCP client for ser2net and P1-to-LAN adapters (`tcp://host:port`). */
export class TcpTransport extends EventEmitter<ByteTransportEvents> implements ByteTransport {
  private socket: Socket | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly connectTimeoutMs = 10_000,
    private readonly clock: Clock = systemClock,
  ) {
    super();
  }

  get description(): string {
    return `tcp://${this.host}:${this.port}`;
  }

  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: this.host, port: this.port, noDelay: true });
      const timer = this.clock.setTimeout(
        () => socket.destroy(new Error(`connect timeout after ${this.connectTimeoutMs} ms`)),
        this.connectTimeoutMs,
      );
      socket.once('connect', () => {
        this.clock.clearTimeout(timer);
        socket.setKeepAlive(true, 10_000);
        this.socket = socket;
        socket.on('data', (chunk: Buffer) => this.emit('data', chunk));
        socket.on('error', () => undefined);
        socket.once('close', () => {
          if (this.socket === socket) {
            this.socket = undefined;
            this.emit('close', new Error('connection closed by peer'));
          }
        });
        resolve();
      });
      socket.once('error', (error) => {
        this.clock.clearTimeout(timer);
        if (!this.socket) reject(error);
      });
    });
  }

  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    if (!socket) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.destroy();
    });
  }
}
