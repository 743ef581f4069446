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
 *
 * Read-only (docs/architecture.md#shelly-pro-3em): a method that would change the device (a Gen2
 * verb that writes: `Switch.Set`, `Sys.SetConfig`, `Shelly.Reboot`, `Shelly.Update`, ...) changes
 * nothing and answers -109, the Gen2 common error "failed precondition" (Shelly's
 * "Common Errors" page: the error codes are the gRPC status codes, negated, minus 100). It is not
 * 401: Home Assistant's client takes 401 for a wrong password and asks the user to sign in again.
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
  /** Calls the listener on each new reading and meter status change; returns the unsubscribe. */
  onChange?(listener: () => void): () => void;
}

/** Methods whose component has ids: only id 0 exists on the Pro 3EM in the triphase profile. */
const WITH_ID = new Set(['EM.GetStatus', 'EMData.GetStatus', 'EM.GetConfig', 'EMData.GetConfig']);

/**
 * The methods this personality answers, as `Shelly.ListMethods` lists them: Victron's dbus-shelly
 * and evcc's `meter/shelly` take the capability (`EM`) from the namespaces of this list.
 */
export const SHELLY_METHODS = [
  'EM.GetConfig',
  'EM.GetStatus',
  'EMData.GetConfig',
  'EMData.GetStatus',
  'Shelly.CheckForUpdate',
  'Shelly.GetComponents',
  'Shelly.GetConfig',
  'Shelly.GetDeviceInfo',
  'Shelly.GetStatus',
  'Shelly.ListMethods',
  'Sys.GetConfig',
  'Sys.GetStatus',
] as const;

/** Components per page of `Shelly.GetComponents` (the device pages its answer; clients follow `offset`). */
export const COMPONENTS_PAGE = 5;

/** The Gen2 common error -109 (failed precondition) for a method that would change the device. */
export const NOT_ALLOWED_CODE = -109;

/** The verbs of the Gen2 API's methods that change the device (set, run, delete, update ...). */
const WRITING_VERB =
  /^(Set|Reset|Reboot|Update|FactoryReset|Delete|Create|Put|Start|Stop|Toggle|Trigger|Add|Remove|Calibrate|Install|Cancel|Clear|Eval|Call|Open|Close|GoToPosition)/;

/** Whether a method would change the device. */
function writes(method: string): boolean {
  return WRITING_VERB.test(method.slice(method.lastIndexOf('.') + 1));
}

function objectOf(params: unknown): Record<string, unknown> {
  return params !== null && typeof params === 'object' && !Array.isArray(params)
    ? (params as Record<string, unknown>)
    : {};
}

/**
 * `Shelly.GetComponents` (Gen2 API, Shelly service): `{components: [{key, status?, config?}],
 * cfg_rev, offset, total}`. `include` names the parts given per component (`status`, `config`;
 * keys only without it), `keys` filters, `offset` pages, `dynamic_only` keeps the components
 * created at run time: a Pro 3EM has none (Home Assistant asks for them on firmware 20240213 and
 * later and reads `total`, then `components` page by page).
 */
function components(
  params: unknown,
  status: Record<string, unknown>,
  config: Record<string, unknown>,
): RpcOutcome {
  const { dynamic_only: dynamicOnly, include, keys, offset } = objectOf(params);
  const start = offset === undefined ? 0 : Number(offset);
  if (!Number.isInteger(start) || start < 0)
    return { error: { code: -103, message: "Argument 'offset' must be a non-negative integer" } };
  const parts = Array.isArray(include) ? include : [];
  const wanted = Array.isArray(keys) ? new Set(keys.map(String)) : undefined;
  const all =
    dynamicOnly === true ? [] : Object.keys(status).filter((key) => wanted === undefined || wanted.has(key));
  const page = all.slice(start, start + COMPONENTS_PAGE).map((key) => {
    const component: Record<string, unknown> = { key };
    if (parts.includes('status')) component.status = status[key];
    if (parts.includes('config')) component.config = config[key] ?? {};
    return component;
  });
  return { result: { components: page, cfg_rev: 0, offset: start, total: all.length } };
}

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

  /** Subscribes to the served meter's changes (a no-op source without them). */
  onChange(listener: () => void): () => void {
    return this.source.onChange?.(listener) ?? (() => undefined);
  }

  deviceId(): string {
    return shellyDeviceId(this.source.identity().systemId);
  }

  /** The served reading's EM and EMData status, built once per reading (the pushes share them). */
  measured(): { em: EmStatus; emData: EmStatus } {
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
      case 'Shelly.GetStatus':
        return { result: this.status() };
      case 'Shelly.GetConfig':
        return { result: shellyConfig(identity) };
      case 'Shelly.GetComponents':
        return components(params, this.status(), shellyConfig(identity));
      case 'Shelly.ListMethods':
        return { result: { methods: [...SHELLY_METHODS] } };
      case 'Shelly.CheckForUpdate':
        // No release is offered: the device answers an empty object when it has none.
        return { result: {} };
      case 'Sys.GetStatus':
        return { result: sysStatus(identity, facts()) };
      case 'Sys.GetConfig':
        return { result: shellyConfig(identity).sys };
      case 'EM.GetStatus':
        return { result: this.measured().em };
      case 'EM.GetConfig':
        return { result: shellyConfig(identity)['em:0'] };
      case 'EMData.GetStatus':
        return { result: this.measured().emData };
      case 'EMData.GetConfig':
        return { result: shellyConfig(identity)['emdata:0'] };
      default:
        if (writes(method))
          return {
            error: {
              code: NOT_ALLOWED_CODE,
              message: `${method} is not allowed: the meter gateway is read-only`,
            },
          };
        return { error: { code: 404, message: `No handler for ${method}` } };
    }
  }

  /** `Shelly.GetStatus` now (the `sys` facts are taken live). */
  status(): Record<string, unknown> {
    const { em, emData } = this.measured();
    const facts = this.source.facts?.() ?? hostFacts(this.source.clock);
    return shellyStatus(this.source.identity(), facts, this.source.reading(), em, emData);
  }

  /** The clock's time in seconds with 2 decimals, the `ts` of a notification. */
  timestamp(): number {
    return Math.round((this.source.clock ?? systemClock).now() / 10) / 100;
  }

  /**
   * A JSON-RPC frame (text) -> the response frame (text). Notifications (a request without id) are
   * answered too: the Gen2 devices answer every request frame they can parse.
   */
  frame(text: string, onSource?: (src: string) => void): string {
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
    if (typeof src === 'string' && onSource) onSource(src);
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
