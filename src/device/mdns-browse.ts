import makeMdns from 'multicast-dns';
import type { Answer } from 'dns-packet';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { worthLogging, type Refusals } from '../refusals.js';
import { serialOf } from './homewizard/api-v1.js';
import { ipv4Interfaces, type InterfaceAddress } from './mdns-interfaces.js';
import { shellyDeviceId } from './shelly/device.js';

/**
 * A one-shot mDNS browse (RFC 6762 §5.1) for the dongles a further meter can read
 * (docs/architecture.md#dongle-sources): HomeWizard Energy devices (`_hwenergy._tcp`, TXT
 * `product_type`, `serial`, `path=/api/v1`, `api_enabled`: HomeWizard api-documentation,
 * docs/discovery.mdx) and Shelly Gen2 devices (`_shelly._tcp` and `_http._tcp` instances named
 * `shelly<model>-<id>`, TXT `gen=2`, `app=Pro3EM`: Shelly Gen2 API docs, General/mDNS). The
 * questions go out on each IPv4 interface, the answers of a few seconds are gathered. Hostile
 * answers (undecodable, oversized, compression-pointer loops, which the decoder refuses: RFC 1035
 * §4.1.4 allows pointers to prior data only) are dropped and counted
 * (docs/architecture.md#hostile-input); the list is bounded.
 */

export type DongleKind = 'homewizard' | 'shelly';

export interface FoundDongle {
  kind: DongleKind;
  /** The mDNS instance name (`p1meter-334455`, `shellypro3em-c8f09e8e1234`). */
  name: string;
  /** The IPv4 address the device answered with (its A record, else the answer's sender). */
  host: string;
  port: number;
  /** HomeWizard's `product_type` (HWE-P1), Shelly's `app` (Pro3EM). */
  product: string;
  /** The meter source URI that reads it (homewizard://host[:port], shelly://host[:port]). */
  source: string;
}

export interface BrowseOptions {
  /** How long answers are gathered (default 3 s). */
  durationMs?: number;
  /** At most this many devices are listed (default 64); more are counted, not listed. */
  maxDevices?: number;
  /** The gateway's system id: its own HomeWizard and Shelly personalities are not listed. */
  systemId: string;
  /** The interfaces to ask on (default: the host's IPv4 interfaces). */
  interfaces?: readonly InterfaceAddress[];
}

export interface BrowseDeps {
  clock: Clock;
  logger: Logger;
  refusals: Refusals;
}

const SERVICES = ['_hwenergy._tcp.local', '_shelly._tcp.local', '_http._tcp.local'] as const;
export const BROWSE_MS = 3000;
export const MAX_DEVICES = 64;
/** Records in one answer above which it is dropped whole (a real dongle sends fewer than ten). */
const MAX_RECORDS = 64;
/** Service instances and host addresses remembered during one browse. */
const MAX_NAMES = 512;
/** TXT strings read of one record, and their length. */
const MAX_TXT = 32;
const MAX_TXT_LENGTH = 255;
/** A label a source URI can carry as it is: letters, digits, hyphens (RFC 1123 §2.1). */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

interface Instance {
  service: (typeof SERVICES)[number];
  label: string;
  port?: number;
  target?: string;
  txt?: Map<string, string>;
  /** The sender of the answer that held the SRV record. */
  from?: string;
}

/** TXT strings (`key=value`) as a map; bounded in count and length. */
function txtOf(data: unknown): Map<string, string> {
  const map = new Map<string, string>();
  const list = Array.isArray(data) ? data : [data];
  for (const item of list.slice(0, MAX_TXT)) {
    const text = (Buffer.isBuffer(item) ? item.toString('utf8') : String(item)).slice(0, MAX_TXT_LENGTH);
    const at = text.indexOf('=');
    if (at > 0) map.set(text.slice(0, at).toLowerCase(), text.slice(at + 1));
  }
  return map;
}

/** Gathers the answers of one browse into bounded maps. */
class Gathered {
  readonly instances = new Map<string, Instance>();
  readonly addresses = new Map<string, string>();
  full = false;

  private instance(name: string): Instance | undefined {
    const key = name.toLowerCase();
    const known = this.instances.get(key);
    if (known) return known;
    const service = SERVICES.find((type) => key.endsWith(`.${type}`));
    if (!service) return undefined;
    const label = name.slice(0, name.length - service.length - 1);
    if (label === '' || label.length > 63) return undefined;
    if (this.instances.size >= MAX_NAMES) {
      this.full = true;
      return undefined;
    }
    const made: Instance = { service, label };
    this.instances.set(key, made);
    return made;
  }

  add(record: Answer, from: string | undefined): void {
    const name = record.name;
    if (record.type === 'PTR' && typeof record.data === 'string') {
      if (SERVICES.includes(name.toLowerCase() as (typeof SERVICES)[number])) this.instance(record.data);
    } else if (record.type === 'SRV' && typeof record.data === 'object') {
      const entry = this.instance(name);
      if (!entry) return;
      entry.port = record.data.port;
      entry.target = record.data.target;
      entry.from = from;
    } else if (record.type === 'TXT') {
      const entry = this.instance(name);
      if (entry) entry.txt = txtOf(record.data);
    } else if (record.type === 'A' && typeof record.data === 'string' && IPV4.test(record.data)) {
      const host = name.toLowerCase();
      if (!this.addresses.has(host) && this.addresses.size >= MAX_NAMES) this.full = true;
      else this.addresses.set(host, record.data);
    }
  }
}

/** The dongle an instance describes, or undefined when it is none (or the gateway's own). */
function dongleOf(entry: Instance, gathered: Gathered, systemId: string): FoundDongle | undefined {
  if (entry.port === undefined || entry.port < 1 || !entry.txt || !LABEL.test(entry.label)) return undefined;
  const address = (entry.target && gathered.addresses.get(entry.target.toLowerCase())) ?? entry.from;
  if (address === undefined || !IPV4.test(address)) return undefined;
  const txt = entry.txt;
  let kind: DongleKind;
  let product: string;
  if (entry.service === '_hwenergy._tcp.local') {
    if ((txt.get('serial') ?? '').toLowerCase() === serialOf(systemId)) return undefined;
    kind = 'homewizard';
    product = txt.get('product_type') ?? '';
  } else {
    // Gen2 and later speak the RPC the shelly source reads; Gen1 devices have no `gen` key.
    const gen = Number(txt.get('gen'));
    if (!/^shelly/i.test(entry.label) || !Number.isInteger(gen) || gen < 2) return undefined;
    if (entry.label.toLowerCase() === shellyDeviceId(systemId).toLowerCase()) return undefined;
    kind = 'shelly';
    product = txt.get('app') ?? '';
  }
  const port = entry.port === 80 ? '' : `:${entry.port}`;
  return {
    kind,
    name: entry.label,
    host: address,
    port: entry.port,
    product,
    source: `${kind}://${address}${port}`,
  };
}

/**
 * Browses for `durationMs` on every IPv4 interface (one socket per interface, as the announcer's
 * links, docs/architecture.md#services) and resolves with the dongles found, sorted by kind and name.
 */
export async function browseDongles(deps: BrowseDeps, options: BrowseOptions): Promise<FoundDongle[]> {
  const durationMs = options.durationMs ?? BROWSE_MS;
  const maxDevices = options.maxDevices ?? MAX_DEVICES;
  const interfaces = options.interfaces ?? ipv4Interfaces();
  const gathered = new Gathered();
  const refuse = (reason: string, detail: string) => {
    const count = deps.refusals.add(reason);
    if (worthLogging(count)) deps.logger.warn(`mDNS browse: answer dropped (${detail}), ${count} so far`);
  };
  // One socket per interface address; a host with no IPv4 interface but loopback asks on the default one.
  const own = [...new Set(interfaces.map((entry) => entry.address))];
  const sockets = (own.length > 0 ? own : [undefined]).flatMap((address) => {
    try {
      return [
        makeMdns(
          address === undefined
            ? { loopback: true }
            : { loopback: true, interface: address, bind: '0.0.0.0', reuseAddr: true },
        ),
      ];
    } catch (error) {
      deps.logger.warn(
        `mDNS browse unavailable on ${address ?? 'the default interface'}: ${(error as Error).message}`,
      );
      return [];
    }
  });
  const ask = () => {
    for (const mdns of sockets)
      mdns.query({ questions: SERVICES.map((name) => ({ name, type: 'PTR' as const })) });
  };
  for (const mdns of sockets) {
    mdns.on('warning', (error: Error) => refuse('mdns_answer_undecodable', error.message));
    mdns.on('error', (error: Error) => deps.logger.warn(`mDNS browse socket error: ${error.message}`));
    mdns.on('response', (response, rinfo) => {
      try {
        const records = [
          ...response.answers,
          ...(response.authorities ?? []),
          ...(response.additionals ?? []),
        ];
        if (records.length > MAX_RECORDS) return refuse('mdns_answer_oversized', `${records.length} records`);
        for (const record of records) gathered.add(record, rinfo?.address);
      } catch (error) {
        refuse('mdns_answer_malformed', (error as Error).message);
      }
    });
  }
  ask();
  // A second question a second later (RFC 6762 §5.2: the interval between the first two is at least 1 s).
  const again = deps.clock.setTimeout(ask, 1000);
  await new Promise<void>((resolve) => deps.clock.setTimeout(resolve, durationMs));
  deps.clock.clearTimeout(again);
  await Promise.all(sockets.map((mdns) => new Promise<void>((resolve) => mdns.destroy(() => resolve()))));
  if (gathered.full) refuse('mdns_browse_full', 'too many names');
  const found = new Map<string, FoundDongle>();
  let over = 0;
  for (const entry of gathered.instances.values()) {
    const dongle = dongleOf(entry, gathered, options.systemId);
    if (!dongle) continue;
    // A Shelly announces one instance under _shelly._tcp and one under _http._tcp: one device.
    const key = `${dongle.kind}/${dongle.name.toLowerCase()}`;
    if (found.has(key)) continue;
    if (found.size >= maxDevices) over += 1;
    else found.set(key, dongle);
  }
  if (over > 0) refuse('mdns_browse_too_many', `${over} devices over ${maxDevices}`);
  return [...found.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
}
