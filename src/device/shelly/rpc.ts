import { freemem, totalmem } from 'node:os';
import { systemClock, type Clock } from '../../clock.js';
import type { Reading } from '../../reading/reading.js';
import { emDataStatus, emStatus, type EmStatus } from './em-status.js';
import {
  deviceInfo,
  shellyConfig,
  shellyDeviceId,
  shellyStatus,
  sysStatus,
  type ShellyIdentity,
  type SysFacts,
} from './device.js';

/**
 * The Pro 3EM's RPC methods and frames, one implementation for every transport (HTTP GET and POST,
 * WebSocket, UDP), docs/architecture.md#shelly-pro-3em.
 *
 * Frames follow the Gen2 "RPC Protocol" page (shelly-api-docs.shelly.cloud/gen2/General/RPCProtocol,
 * quoted in evcc-io/evcc#22718): a request `{"id", "src", "method", "params"}`, a response
 * `{"id", "src": <device id>, "dst": <request src>, "result"}` or `... "error": {"code", "message"}}`.
 * An unknown method is answered `{"code":404,"message":"No handler for <method>"}` like a real device
 * (sdeigm/uni-meter#401). A component id other than 0 is the Gen2 "not found" error -105; a frame
 * that is not JSON or not a request gets JSON-RPC 2.0's -32700 / -32600 with id null.
 */

export interface RpcError {
  code: number;
  message: string;
}

export type RpcOutcome = { result: unknown } | { error: RpcError };

export interface ShellySource {
  /** The served meter's reading while fresh; undefined before the first and while stale. */
  reading(): Reading | undefined;
  identity(): ShellyIdentity;
  facts?(): SysFacts;
  /** The host facts' time (docs/architecture.md#clock). */
  clock?: Clock;
}

/** Methods whose component has ids: only id 0 exists on the Pro 3EM in the triphase profile. */
const WITH_ID = new Set(['EM.GetStatus', 'EMData.GetStatus']);

function hostFacts(clock: Clock = systemClock): SysFacts {
  const now = clock.now();
  const time = new Date(now);
  return {
    now,
    uptimeSeconds: process.uptime(),
    ramSize: totalmem(),
    ramFree: freemem(),
    localTime: `${String(time.getHours()).padStart(2, '0')}:${String(time.getMinutes()).padStart(2, '0')}`,
  };
}

export class ShellyRpc {
  /** The answers of one reading object, built once (docs/architecture.md#shelly-pro-3em). */
  private cached: { reading: Reading | undefined; em: EmStatus; emData: EmStatus } | undefined;

  constructor(private readonly source: ShellySource) {}

  deviceId(): string {
    return shellyDeviceId(this.source.identity().systemId);
  }

  private measured(): { em: EmStatus; emData: EmStatus } {
    const reading = this.source.reading();
    if (!this.cached || this.cached.reading !== reading)
      this.cached = { reading, em: emStatus(reading), emData: emDataStatus(reading) };
    return this.cached;
  }

  /** One method call; `params` as the request gave them (an object, or undefined). */
  call(method: string, params: unknown): RpcOutcome {
    if (WITH_ID.has(method)) {
      const id = params !== null && typeof params === 'object' ? (params as { id?: unknown }).id : undefined;
      if (id !== undefined && Number(id) !== 0)
        return { error: { code: -105, message: `Argument 'id', value ${JSON.stringify(id)} not found!` } };
    }
    const identity = this.source.identity();
    const facts = () => this.source.facts?.() ?? hostFacts(this.source.clock);
    switch (method) {
      case 'Shelly.GetDeviceInfo':
        return { result: deviceInfo(identity) };
      case 'Shelly.GetStatus': {
        const { em, emData } = this.measured();
        return { result: shellyStatus(identity, facts(), this.source.reading(), em, emData) };
      }
      case 'Shelly.GetConfig':
        return { result: shellyConfig(identity) };
      case 'Sys.GetStatus':
        return { result: sysStatus(identity, facts()) };
      case 'EM.GetStatus':
        return { result: this.measured().em };
      case 'EMData.GetStatus':
        return { result: this.measured().emData };
      default:
        return { error: { code: 404, message: `No handler for ${method}` } };
    }
  }

  /**
   * A JSON-RPC frame (text) -> the response frame (text). Notifications (a request without id) are
   * answered too: the Gen2 devices answer every request frame they can parse.
   */
  frame(text: string): string {
    let request: unknown;
    try {
      request = JSON.parse(text);
    } catch {
      return this.reply(null, undefined, { error: { code: -32700, message: 'Parse error' } });
    }
    if (request === null || typeof request !== 'object' || Array.isArray(request))
      return this.reply(null, undefined, { error: { code: -32600, message: 'Invalid request' } });
    const { id, src, method, params } = request as Record<string, unknown>;
    const frameId = typeof id === 'number' || typeof id === 'string' ? id : null;
    if (typeof method !== 'string')
      return this.reply(frameId, src, { error: { code: -32600, message: 'Invalid request' } });
    return this.reply(frameId, src, this.call(method, params));
  }

  private reply(id: number | string | null, dst: unknown, outcome: RpcOutcome): string {
    const frame: Record<string, unknown> = { id, src: this.deviceId() };
    if (typeof dst === 'string') frame.dst = dst;
    Object.assign(frame, outcome);
    return JSON.stringify(frame);
  }
}
