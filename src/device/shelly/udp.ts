import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { systemClock, type Clock } from '../../clock.js';
import type { AppConfig } from '../../config/types.js';
import type { Logger } from '../../log.js';
import type {
  DeclaredOutput,
  MeterLookup,
  MeterRef,
  OutputStatus,
  OutputView,
  StatusPort,
} from '../../output.js';
import type { ShellyRpc } from './rpc.js';

/**
 * JSON-RPC over UDP, the transport Marstek and Hoymiles batteries poll (docs/architecture.md#shelly-pro-3em):
 * one request frame per datagram (`{"id":1,"method":"EM.GetStatus","params":{"id":0}}`), one
 * response frame per datagram back to the sender. Ports: 1010, which the Venus and the B2500 up
 * to firmware 224 poll (the Venus broadcasts to UDP 1010 until a device answers, then asks that one
 * directly: sdeigm/uni-meter doc/output/ShellyPro3EM.md), and 2220, which the B2500 polls from
 * firmware 226 (tomquist/b2500-meter README: `shellypro3em_old` on 1010, `shellypro3em_new` on 2220).
 *
 * The answer is the EM component's powers only, each written with a decimal point (`500.0`, a
 * phase at zero `0.0`): the B2500 on firmware 116.x crashes on integer powers (sdeigm/uni-meter#236)
 * and the published emulators (b2500-meter, uni-meter) all force a fraction. A phase the meter does
 * not measure is `0.0` there (the batteries need a number; the total carries the meter's sum); while
 * the meter is stale nothing is answered, never an old or invented number.
 *
 * Against reflection (docs/architecture.md#shelly-pro-3em): only `EM.GetStatus` of component 0 is
 * answered, every other datagram (not JSON, not a request frame, another method, a source port 0)
 * is dropped without an answer and counted; an answer is a few hundred bytes at most, whatever the
 * request; and each source address gets at most UDP_RATE datagrams a second read (burst UDP_BURST;
 * the rest is dropped before parsing),
 * kept in a table of at most UDP_SOURCES addresses (a full table answers no new address until a
 * sweep, at most once per second, frees idle ones). Bounded and never throwing: a datagram over
 * 4 kB is dropped and counted, a failed send is counted and logged.
 */

interface UdpSlice {
  enable: boolean;
  ports: number[];
  host: string;
  /** services.emulate.shelly.meter: the meter the answers come from (none while it is missing). */
  meter: MeterRef;
}

/** The facts of the `shelly_udp` status line (docs/architecture.md#output-contract). */
export type ShellyUdpFacts = {
  host: string;
  /** The bound ports. */
  ports: number[];
  meter: string;
  /** Whether the configured meter runs; while it does not, no datagram is answered. */
  meter_running: boolean;
};

export type ShellyUdpStatus = OutputStatus<ShellyUdpFacts>;

export const SHELLY_UDP_LIMIT = 4096;
/** Answers per second and source address, and the burst a source may use at once. */
export const UDP_RATE = 10;
export const UDP_BURST = 20;
/** Source addresses the rate limiter tracks at once. */
export const UDP_SOURCES = 1024;

/** The ports of `udp_port` and the list `udp_ports` ("2220" or "1010,2220"), without 0 and repeats. */
export function udpPorts(port: number, more: string): number[] {
  const ports = [port, ...more.split(',').map((part) => Number(part.trim()))];
  return [...new Set(ports.filter((value) => Number.isInteger(value) && value > 0 && value <= 65535))];
}

/** A JSON number with at least one decimal: `500` -> `500.0`, `-0` -> `0.0`, `12.5` stays. */
export function decimal(value: number): string {
  if (Object.is(value, -0) || value === 0) return '0.0';
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

const POWER_FIELDS = ['a_act_power', 'b_act_power', 'c_act_power', 'total_act_power'] as const;

/**
 * The answer to one datagram's text, or undefined when it gets none: a request frame for
 * `EM.GetStatus` (params absent or `{"id": 0}`) with a number or string id.
 */
export function udpAnswer(rpc: ShellyRpc, text: string): string | undefined {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (request === null || typeof request !== 'object' || Array.isArray(request)) return undefined;
  const { id, src, method, params } = request as Record<string, unknown>;
  if (method !== 'EM.GetStatus') return undefined;
  if (typeof id !== 'number' && typeof id !== 'string') return undefined;
  if (params !== undefined) {
    if (params === null || typeof params !== 'object') return undefined;
    const component = (params as { id?: unknown }).id;
    if (component !== undefined && component !== 0) return undefined;
  }
  const em = rpc.measured().em;
  if ('errors' in em || typeof em.total_act_power !== 'number') return undefined;
  const fields = POWER_FIELDS.map((field) => {
    const value = em[field];
    return `"${field}":${decimal(typeof value === 'number' ? value : 0)}`;
  });
  const dst = typeof src === 'string' && src.length <= 64 ? `,"dst":${JSON.stringify(src)}` : '';
  const frameId = typeof id === 'string' ? JSON.stringify(id.slice(0, 32)) : String(id);
  return `{"id":${frameId},"src":${JSON.stringify(rpc.deviceId())}${dst},"result":{"id":0,${fields.join(',')}}}`;
}

/** A token bucket per source address (answers per second), bounded in the number of addresses. */
class SourceLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private lastSweep = 0;

  constructor(private readonly clock: Clock) {}

  allow(address: string): boolean {
    const now = this.clock.now();
    let bucket = this.buckets.get(address);
    if (!bucket) {
      if (this.buckets.size >= UDP_SOURCES && !this.sweep(now)) return false;
      bucket = { tokens: UDP_BURST, at: now };
      this.buckets.set(address, bucket);
    }
    bucket.tokens = Math.min(UDP_BURST, bucket.tokens + ((now - bucket.at) / 1000) * UDP_RATE);
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Drops the addresses whose bucket has refilled (idle); at most once a second. */
  private sweep(now: number): boolean {
    if (now - this.lastSweep < 1000) return false;
    this.lastSweep = now;
    const idleAfterMs = (UDP_BURST / UDP_RATE) * 1000;
    for (const [address, bucket] of this.buckets)
      if (now - bucket.at >= idleAfterMs) this.buckets.delete(address);
    return this.buckets.size < UDP_SOURCES;
  }
}

export class ShellyUdp implements DeclaredOutput<UdpSlice, ShellyUdpFacts> {
  readonly name = 'shelly_udp';
  readonly watches = ['services.emulate.shelly', 'http.host'] as const;
  private sockets: Socket[] = [];
  private bound: string | undefined;
  private readonly limiter: SourceLimiter;
  /** Datagrams dropped for their size. */
  oversized = 0;
  answered = 0;
  /** Datagrams that were no request this transport answers (not JSON, another method, port 0). */
  ignored = 0;
  /** Requests refused by the per-source rate limit. */
  limited = 0;
  /** Answers the socket failed to send. */
  sendErrors = 0;

  constructor(
    private readonly rpc: ShellyRpc,
    private readonly logger: Logger,
    clock: Clock = systemClock,
  ) {
    this.limiter = new SourceLimiter(clock);
  }

  select(config: AppConfig, meters: MeterLookup): UdpSlice {
    const shelly = config.services.emulate.shelly;
    const ports = udpPorts(shelly.udp_port, shelly.udp_ports);
    return {
      enable: shelly.enable && shelly.udp_port > 0,
      ports,
      host: config.http.host,
      meter: meters.ref(shelly.meter),
    };
  }

  enabled(slice: UdpSlice): boolean {
    return slice.enable;
  }

  async start(_status: StatusPort<ShellyUdpFacts>): Promise<void> {}

  async stop(): Promise<void> {
    await this.close();
  }

  /** The first bound port (tests bind port 0 through the config). */
  address(): number | undefined {
    return this.sockets[0]?.address().port;
  }

  /** Every bound port. */
  addresses(): number[] {
    return this.sockets.map((socket) => socket.address().port);
  }

  /**
   * Binds the ports `next` names (a change of the meter alone keeps the sockets: the answers read
   * the RPC's meter); rejects with the socket's error (EADDRINUSE) after closing what it opened.
   */
  async apply({ slice }: OutputView<UdpSlice>): Promise<ShellyUdpFacts | undefined> {
    const key = slice.enable ? `${slice.host}:${slice.ports.join(',')}` : undefined;
    if (key !== this.bound) {
      await this.close();
      if (!slice.enable) return undefined;
      try {
        for (const port of slice.ports) this.sockets.push(await this.open(slice.host, port));
      } catch (error) {
        await this.close();
        throw error;
      }
      this.bound = key;
      this.logger.info(`shelly: udp: listening on ${slice.host}:${this.addresses().join(',')}`);
    }
    if (!slice.enable) return undefined;
    return {
      host: slice.host,
      ports: this.addresses(),
      meter: slice.meter.id,
      meter_running: slice.meter.handle !== undefined,
    };
  }

  private async open(host: string, port: number): Promise<Socket> {
    const socket = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4', reuseAddr: false });
    socket.on('message', (message, remote) => this.receive(socket, message, remote));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', (error) => {
        socket.close();
        reject(error);
      });
      socket.bind(port, host, () => {
        socket.removeAllListeners('error');
        resolve();
      });
    });
    socket.on('error', (error) => this.logger.warn(`shelly: udp: ${error.message}`));
    return socket;
  }

  private receive(socket: Socket, message: Buffer, remote: RemoteInfo): void {
    if (message.length > SHELLY_UDP_LIMIT) {
      this.oversized++;
      return;
    }
    // An answer to port 0 cannot be sent (ERR_SOCKET_BAD_PORT): such a datagram is forged.
    if (remote.port === 0) {
      this.ignored++;
      return;
    }
    // The rate limit comes first: a flood from one source costs a table lookup per datagram, not a
    // JSON parse.
    if (!this.limiter.allow(remote.address)) {
      this.limited++;
      return;
    }
    let answer: string | undefined;
    try {
      answer = udpAnswer(this.rpc, message.toString('utf8'));
    } catch (error) {
      this.logger.warn(`shelly: udp: ${(error as Error).message}`);
    }
    if (answer === undefined) {
      this.ignored++;
      return;
    }
    try {
      socket.send(answer, remote.port, remote.address, (error) => {
        if (error) this.sendFailed(error);
      });
      this.answered++;
    } catch (error) {
      this.sendFailed(error as Error);
    }
  }

  private sendFailed(error: Error): void {
    this.sendErrors++;
    if (this.sendErrors <= 10 || this.sendErrors % 1000 === 0)
      this.logger.warn(`shelly: udp: answer not sent (${this.sendErrors} so far): ${error.message}`);
  }

  private async close(): Promise<void> {
    const sockets = this.sockets;
    this.sockets = [];
    this.bound = undefined;
    await Promise.all(sockets.map((socket) => new Promise<void>((resolve) => socket.close(() => resolve()))));
  }
}
