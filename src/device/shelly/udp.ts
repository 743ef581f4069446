import { createSocket, type Socket } from 'node:dgram';
import type { AppConfig } from '../../config/types.js';
import type { Logger } from '../../log.js';
import type { Output, OutputView } from '../../output.js';
import type { ShellyRpc } from './rpc.js';

/**
 * JSON-RPC over UDP, the transport Marstek batteries poll (docs/architecture.md#shelly-pro-3em):
 * one request frame per datagram (`{"id":1,"method":"EM.GetStatus","params":{"id":0}}`), one
 * response frame per datagram back to the sender. Port 1010 is what the Venus polls: it broadcasts
 * to UDP 1010 until a device answers, then asks that one directly (sdeigm/uni-meter
 * doc/output/ShellyPro3EM.md; tomquist's b2500-meter / AstraMeter answer on the same port).
 *
 * Bounded and stateless: a datagram over 4 kB is dropped and counted, nothing is kept per sender,
 * so a flood costs CPU only while it lasts, never memory.
 */

interface UdpSlice {
  enable: boolean;
  port: number;
  host: string;
}

export const SHELLY_UDP_LIMIT = 4096;

export class ShellyUdp implements Output<UdpSlice> {
  readonly name = 'shelly-udp';
  readonly watches = ['services.emulate.shelly', 'http.host'] as const;
  private socket: Socket | undefined;
  private bound: string | undefined;
  /** Datagrams dropped for their size. */
  oversized = 0;
  answered = 0;

  constructor(
    private readonly rpc: ShellyRpc,
    private readonly logger: Logger,
  ) {}

  select(config: AppConfig): UdpSlice {
    const shelly = config.services.emulate.shelly;
    return { enable: shelly.enable && shelly.udp_port > 0, port: shelly.udp_port, host: config.http.host };
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {
    await this.close();
  }

  /** The bound port (tests bind port 0 through the config). */
  address(): number | undefined {
    return this.socket?.address().port;
  }

  async reconcile({ slice }: OutputView<UdpSlice>): Promise<void> {
    const key = slice.enable ? `${slice.host}:${slice.port}` : undefined;
    if (key === this.bound) return;
    await this.close();
    if (!slice.enable) return;
    const socket = createSocket({ type: slice.host.includes(':') ? 'udp6' : 'udp4', reuseAddr: false });
    socket.on('message', (message, remote) => {
      // Port 0 is no valid destination (RFC 768): send() would throw ERR_SOCKET_BAD_PORT.
      if (remote.port === 0) return;
      if (message.length > SHELLY_UDP_LIMIT) {
        this.oversized++;
        return;
      }
      const answer = Buffer.from(this.rpc.frame(message.toString('utf8')));
      this.answered++;
      try {
        socket.send(answer, remote.port, remote.address);
      } catch (error) {
        this.logger.warn(`shelly: udp: ${(error as Error).message}`);
      }
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', (error) => {
        socket.close();
        reject(error);
      });
      socket.bind(slice.port, slice.host, () => {
        socket.removeAllListeners('error');
        resolve();
      });
    });
    socket.on('error', (error) => this.logger.warn(`shelly: udp: ${error.message}`));
    this.socket = socket;
    this.bound = key;
    this.logger.info(`shelly: udp: listening on ${slice.host}:${socket.address().port}`);
  }

  private async close(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    this.bound = undefined;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}
