/**
 * What the mDNS announcer says (docs/architecture.md#services): the services it announces (the
 * gateway's `_http._tcp` and `_modbus._tcp`, the Shelly and HomeWizard personalities' own) and
 * their DNS-SD records (RFC 6763 §4-§6: PTR, SRV, TXT, and an A record per host and address), with
 * the answers to a query's questions (RFC 6762 §6). Pure: no sockets, no clock.
 */
import type { Answer } from 'dns-packet';
import { PRODUCT_NAME, PRODUCT_TYPE, serialOf } from './homewizard/api-v1.js';
import { SHELLY_FIRMWARE, shellyDeviceId } from './shelly/device.js';

/** TTL of the records (RFC 6762 §10: 120 s for host records, 4500 s recommended for others; we use 120 for all). */
export const TTL = 120;

export interface Advertised {
  type: '_http._tcp' | '_modbus._tcp' | '_shelly._tcp' | '_hwenergy._tcp';
  port: number;
  /** Host (and instance) name when not the gateway's own: the Shelly personality's. */
  host?: string;
  /** The instance label when it is not the host's name (HomeWizard's `p1meter-<6 hex>`). */
  label?: string;
  txt?: string[];
}

/** Whose records they are: the gateway's host name (system.host_name) and its system id. */
export interface RecordOwner {
  hostName: string;
  systemId: string;
}

/** The same announced service: type, port and host (a change in any of them is announced again). */
export function sameService(a: Advertised, b: Advertised): boolean {
  return a.type === b.type && a.port === b.port && a.host === b.host;
}

/**
 * The Shelly personality as a Gen2 device announces itself (Shelly Gen2 API docs, General/mDNS):
 * `_http._tcp` and `_shelly._tcp` instances of the host `shellypro3em-<id>`, TXT `gen=2` (the
 * documented key that tells Gen2 from Gen1), with the app and firmware version beside it.
 */
export function shellyServices(systemId: string, port: number): Advertised[] {
  const host = shellyDeviceId(systemId);
  const txt = ['gen=2', 'app=Pro3EM', `ver=${SHELLY_FIRMWARE.ver}`];
  return [
    { type: '_http._tcp', port, host, txt },
    { type: '_shelly._tcp', port, host, txt },
  ];
}

/**
 * HomeWizard's P1 meter (api-documentation, docs/discovery.mdx): instance `p1meter-<last 6 hex of
 * the serial>` (`dns-sd -B _hwenergy._tcp` lists `p1meter-334455`) on the gateway's host, TXT
 * `api_enabled`, `path`, `serial`, `product_name`, `product_type` (API v1 over HTTP).
 */
export function homewizardService(systemId: string, port: number): Advertised {
  const serial = serialOf(systemId);
  return {
    type: '_hwenergy._tcp',
    port,
    label: `p1meter-${serial.slice(-6)}`,
    txt: [
      'api_enabled=1',
      'path=/api/v1',
      `serial=${serial}`,
      `product_name=${PRODUCT_NAME}`,
      `product_type=${PRODUCT_TYPE}`,
    ],
  };
}

/** One service's PTR, SRV and TXT records (TTL 0 says goodbye, RFC 6762 §10.1). */
export function serviceRecords(owner: RecordOwner, advertised: Advertised, ttl: number): Answer[] {
  const host = advertised.host ?? owner.hostName;
  const instance = `${advertised.label ?? host}.${advertised.type}.local`;
  const txt =
    advertised.txt ??
    (advertised.type === '_http._tcp' ? [`id=${owner.systemId}`, 'type=100'] : [`id=${owner.systemId}`]);
  return [
    { name: `${advertised.type}.local`, type: 'PTR', ttl, data: instance },
    {
      name: instance,
      type: 'SRV',
      ttl,
      data: { port: advertised.port, target: `${host}.local` },
    },
    { name: instance, type: 'TXT', ttl, data: txt },
  ];
}

/** Every record of `advertised`; the A records hold `addresses`. */
export function allRecords(
  owner: RecordOwner,
  advertised: readonly Advertised[],
  ttl: number,
  addresses: readonly string[],
): Answer[] {
  const hosts = new Set([owner.hostName, ...advertised.flatMap((a) => (a.host ? [a.host] : []))]);
  return [
    ...advertised.flatMap((a) => serviceRecords(owner, a, ttl)),
    ...[...hosts].flatMap((host) =>
      addresses.map((address): Answer => ({ name: `${host}.local`, type: 'A', ttl, data: address })),
    ),
  ];
}

/**
 * The response to a query (RFC 6762 §6): the records that answer one of its questions (name without
 * regard to case, type or ANY) and the others as additionals; undefined when none answers.
 */
export function responseTo(
  records: Answer[],
  questions: ReadonlyArray<{ name: string; type: string }>,
): { answers: Answer[]; additionals: Answer[] } | undefined {
  const answers = records.filter((record) =>
    questions.some(
      (q) =>
        q.name.toLowerCase() === record.name.toLowerCase() && (q.type === 'ANY' || q.type === record.type),
    ),
  );
  if (answers.length === 0) return undefined;
  const additionals = records.filter((record) => !answers.includes(record));
  return { answers, additionals };
}
