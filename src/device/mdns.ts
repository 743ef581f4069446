import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import makeMdns from 'multicast-dns';
import type { Answer } from 'dns-packet';
import type { AppContext, ServiceStatus } from '../context.js';
import type { Timer } from '../clock.js';
import type { Logger } from '../log.js';
import type { AppConfig } from '../config/types.js';
import type { DeclaredOutput, OutputStatus, OutputView, StatusPort } from '../output.js';
import { PRODUCT_NAME, PRODUCT_TYPE, serialOf } from './homewizard/api-v1.js';
import { SHELLY_FIRMWARE, shellyDeviceId } from './shelly/device.js';

/** TTL of the records (RFC 6762 §10: 120 s for host records, 4500 s recommended for others; we use 120 for all). */
const TTL = 120;

/** services.broadcast, system.host_name and the Shelly personality's switch. */
interface MdnsSettings {
  broadcast: boolean;
  hostName: string;
  shelly: boolean;
  /** services.emulate.homewizard.enable: announce `_hwenergy._tcp` on the HTTP port. */
  homewizard: boolean;
}

/** The facts of the `mdns` status line (docs/architecture.md#output-contract). */
export type MdnsFacts = {
  /** The host name the records carry (`<system.host_name>.local`). */
  host: string;
  /** The service types announced now (none until the HTTP server runs). */
  services: string[];
};

export type MdnsStatus = OutputStatus<MdnsFacts>;

/** How often the interfaces are scanned for ones that came, went or changed address. */
const RESCAN_MS = 30_000;

/** One interface's mDNS socket and the addresses it announces. */
interface Link {
  name: string;
  addresses: InterfaceAddress[];
  mdns: ReturnType<typeof makeMdns>;
}

interface Advertised {
  type: '_http._tcp' | '_modbus._tcp' | '_shelly._tcp' | '_hwenergy._tcp';
  port: number;
  /** Host (and instance) name when not the gateway's own: the Shelly personality's. */
  host?: string;
  /** The instance label when it is not the host's name (HomeWizard's `p1meter-<6 hex>`). */
  label?: string;
  txt?: string[];
}

/**
 * mDNS announcement (services.broadcast, docs/architecture.md#services): `_http._tcp` with TXT `id=<system
 * id>` and `type=100` (what discovery tools of the real device look for) and, while the Modbus slave runs,
 * `_modbus._tcp`. Answers queries (RFC 6762 §6), announces on start and on changes, and says goodbye
 * with TTL 0 when a service goes away (RFC 6762 §10.1).
 */
export class MdnsAnnouncer implements DeclaredOutput<MdnsSettings, MdnsFacts> {
  readonly name = 'mdns';
  readonly watches = [
    'services.broadcast',
    'system.host_name',
    'services.emulate.shelly.enable',
    'services.emulate.homewizard.enable',
  ] as const;
  /** One socket per IPv4 interface by its name ('' for the one default socket of a host without any). */
  private readonly links = new Map<string, Link>();
  private rescanTimer: Timer | undefined;
  private advertised: Advertised[] = [];
  private settings: MdnsSettings;
  private status: StatusPort<MdnsFacts> | undefined;
  /** Why the last attempt to open an interface's socket failed (the re-scan tries again). */
  private openError: string | undefined;
  // The ports come from the other outputs' status lines: what they really listen on. A status line
  // also changes with its counters (the Modbus slave's, about once a second while polled): only a
  // service that starts, stops or moves is announced again.
  private readonly onServiceChange = (name: string) => {
    if (name !== 'http' && name !== 'modbus' && name !== 'homewizard') return;
    const wanted = this.wanted();
    const same = (a: Advertised, b: Advertised) =>
      a.type === b.type && a.port === b.port && a.host === b.host;
    const unchanged =
      wanted.length === this.advertised.length &&
      wanted.every((w, index) => same(w, this.advertised[index]!));
    if (!unchanged) void this.announce();
  };

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
    /** multicast-dns options (tests bind to one interface). */
    private readonly socketOptions: Parameters<typeof makeMdns>[0] = {},
  ) {
    this.settings = this.select(context.config.config);
  }

  select(config: AppConfig): MdnsSettings {
    return {
      broadcast: config.services.broadcast,
      hostName: config.system.host_name,
      shelly: config.services.emulate.shelly.enable,
      homewizard: config.services.emulate.homewizard.enable,
    };
  }

  enabled(slice: MdnsSettings): boolean {
    return slice.broadcast;
  }

  async start(status: StatusPort<MdnsFacts>): Promise<void> {
    this.status = status;
    this.context.services.on('change', this.onServiceChange);
  }

  async stop(): Promise<void> {
    this.context.services.off('change', this.onServiceChange);
    await this.close();
    this.advertised = [];
  }

  /**
   * Announces what `next` asks for (goodbyes for what it no longer does); rejects when not one
   * interface's socket could be opened, after closing what it opened.
   */
  async apply({ slice }: OutputView<MdnsSettings>): Promise<void> {
    this.settings = slice;
    await this.announce();
    if (this.advertised.length > 0 && this.links.size === 0) {
      const reason = `mDNS unavailable: ${this.openError ?? 'no socket'}`;
      this.advertised = [];
      await this.close();
      throw new Error(reason);
    }
  }

  private hostName(): string {
    return this.settings.hostName;
  }

  private wanted(): Advertised[] {
    if (!this.settings.broadcast) return [];
    const wanted: Advertised[] = [];
    const port = (status: ServiceStatus | undefined) =>
      status?.state === 'running' && typeof status.port === 'number' ? status.port : undefined;
    const http = port(this.context.services.get('http'));
    if (http !== undefined) wanted.push({ type: '_http._tcp', port: http });
    const modbus = port(this.context.services.get('modbus'));
    if (modbus !== undefined) wanted.push({ type: '_modbus._tcp', port: modbus });
    if (http !== undefined && this.settings.shelly) wanted.push(...this.shellyServices(http));
    // The personality's own port when it has one (services.emulate.homewizard.port), else the API's.
    const homewizard = port(this.context.services.get('homewizard')) ?? http;
    if (homewizard !== undefined && this.settings.homewizard) wanted.push(this.homewizardService(homewizard));
    return wanted;
  }

  /**
   * The Shelly personality as a Gen2 device announces itself (Shelly Gen2 API docs, General/mDNS):
   * `_http._tcp` and `_shelly._tcp` instances of the host `shellypro3em-<id>`, TXT `gen=2` (the
   * documented key that tells Gen2 from Gen1), with the app and firmware version beside it.
   */
  private shellyServices(port: number): Advertised[] {
    const host = shellyDeviceId(this.context.system.id);
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
  private homewizardService(port: number): Advertised {
    const serial = serialOf(this.context.system.id);
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

  /** Announces what runs now and says goodbye for what went away (RFC 6762 §8.3, §10.1). */
  private async announce(): Promise<void> {
    const wanted = this.wanted();
    const same = (a: Advertised, b: Advertised) =>
      a.type === b.type && a.port === b.port && a.host === b.host;
    const gone = this.advertised.filter((a) => !wanted.some((w) => same(w, a)));
    if (gone.length > 0)
      for (const link of this.links.values())
        link.mdns.respond({ answers: gone.flatMap((a) => this.serviceRecords(a, 0)) });
    this.advertised = wanted;
    this.status?.facts(
      this.settings.broadcast
        ? { host: `${this.hostName()}.local`, services: wanted.map((w) => w.type) }
        : { host: undefined, services: undefined },
    );
    if (wanted.length === 0) {
      await this.close();
      return;
    }
    if (this.links.size === 0) this.open();
    for (const link of this.links.values()) this.announceOn(link);
  }

  /** The records with this link's own addresses, multicast on this link only. */
  private announceOn(link: Link): void {
    link.mdns.respond({ answers: this.allRecords(TTL, this.linkAddresses(link)) });
  }

  /**
   * One socket per IPv4 interface (RFC 6762 §15: a host on several links announces and answers on
   * each link with the address it has there), each joined to 224.0.0.251 and sending on its own
   * interface; a re-scan on the clock follows interfaces that come, go or change address.
   */
  private open(): void {
    this.scan();
    if (this.rescanTimer === undefined)
      this.rescanTimer = this.context.clock.setInterval(() => this.rescan(), RESCAN_MS);
  }

  /** The host's IPv4 interfaces by name (without loopback). */
  private interfaces(): Map<string, InterfaceAddress[]> {
    const byName = new Map<string, InterfaceAddress[]>();
    for (const entry of ipv4Interfaces()) byName.set(entry.name, [...(byName.get(entry.name) ?? []), entry]);
    return byName;
  }

  /** Opens a socket for each interface that has none and closes those of vanished or changed ones. */
  private scan(): Map<string, Link> {
    const interfaces = this.interfaces();
    const key = (addresses: readonly InterfaceAddress[]) =>
      addresses.map((a) => `${a.address}/${a.netmask}`).join(',');
    for (const [name, link] of this.links) {
      const now = interfaces.get(name);
      // A host with no IPv4 interface but loopback has one socket on the default interface ('').
      const keep =
        name === '' ? interfaces.size === 0 : now !== undefined && key(now) === key(link.addresses);
      if (keep) continue;
      this.links.delete(name);
      link.mdns.destroy();
    }
    const opened = new Map<string, Link>();
    const want: Array<[string, InterfaceAddress[]]> = interfaces.size > 0 ? [...interfaces] : [['', []]];
    let failure: string | undefined;
    for (const [name, addresses] of want) {
      if (this.links.has(name)) continue;
      const link = this.openLink(name, addresses);
      if (link) opened.set(name, link);
      else failure = this.openError;
    }
    this.reportLinks(failure);
    return opened;
  }

  private rescan(): void {
    if (this.advertised.length === 0) return;
    for (const link of this.scan().values()) this.announceOn(link);
  }

  /** Trouble while a socket could not be opened or failed; cleared once every interface has one. */
  private reportLinks(failure: string | undefined): void {
    this.openError = failure;
    this.status?.trouble(this.openError === undefined ? undefined : `mDNS unavailable: ${this.openError}`);
  }

  private openLink(name: string, addresses: InterfaceAddress[]): Link | undefined {
    try {
      const own = addresses[0]?.address;
      const mdns = makeMdns({
        loopback: true,
        ...this.socketOptions,
        // Bound to the wildcard address (a socket bound to a unicast address receives no multicast
        // on Linux), the group joined and the datagrams sent on this interface only.
        ...(own === undefined ? {} : { interface: own, bind: '0.0.0.0', reuseAddr: true }),
      });
      const link: Link = { name, addresses, mdns };
      mdns.on('query', (query, rinfo) => {
        // A forged query must not end the daemon (docs/architecture.md#hostile-input).
        try {
          this.answer(link, query.questions ?? [], rinfo?.address);
        } catch (error) {
          this.logger.warn(`mDNS query not answered: ${(error as Error).message}`);
        }
      });
      mdns.on('error', (error: Error) => {
        this.logger.warn(`mDNS socket error${name ? ` on ${name}` : ''}: ${error.message}`);
        this.reportLinks(error.message);
      });
      this.links.set(name, link);
      return link;
    } catch (error) {
      this.logger.warn(`mDNS unavailable${name ? ` on ${name}` : ''}: ${(error as Error).message}`);
      this.openError = (error as Error).message;
      return undefined;
    }
  }

  /** The A records' addresses on `link`: its own, or (the one default socket) per addressesFor. */
  private linkAddresses(link: Link, querier?: string): string[] {
    if (link.name !== '') return link.addresses.map((a) => a.address);
    return addressesFor(querier, ipv4Interfaces(), defaultRouteInterface());
  }

  /**
   * Every socket receives every query of the group (Linux delivers a group's datagrams to each
   * socket bound to the port, whichever interface joined it), so a query is answered on the link
   * whose subnet holds the querier; a querier on no subnet of the host by the default route's link.
   */
  private answers(link: Link, querier: string | undefined): boolean {
    if (link.name === '') return true;
    const links = [...this.links.values()];
    const local = links.find((candidate) => onSubnet(querier, candidate.addresses).length > 0);
    if (local) return local === link;
    const routed = links.find((candidate) => candidate.name === defaultRouteInterface()) ?? links[0];
    return routed === link;
  }

  private answer(
    link: Link,
    questions: ReadonlyArray<{ name: string; type: string }>,
    querier?: string,
  ): void {
    if (!this.answers(link, querier)) return;
    const records = this.allRecords(TTL, this.linkAddresses(link, querier));
    const answers = records.filter((record) =>
      questions.some(
        (q) =>
          q.name.toLowerCase() === record.name.toLowerCase() && (q.type === 'ANY' || q.type === record.type),
      ),
    );
    if (answers.length === 0) return;
    const additionals = records.filter((record) => !answers.includes(record));
    link.mdns.respond({ answers, additionals });
  }

  private serviceRecords(advertised: Advertised, ttl: number): Answer[] {
    const host = advertised.host ?? this.hostName();
    const instance = `${advertised.label ?? host}.${advertised.type}.local`;
    const txt =
      advertised.txt ??
      (advertised.type === '_http._tcp'
        ? [`id=${this.context.system.id}`, 'type=100']
        : [`id=${this.context.system.id}`]);
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

  /** Every record; the A records hold `addresses`. */
  private allRecords(ttl: number, addresses: readonly string[]): Answer[] {
    const hosts = new Set([this.hostName(), ...this.advertised.flatMap((a) => (a.host ? [a.host] : []))]);
    return [
      ...this.advertised.flatMap((a) => this.serviceRecords(a, ttl)),
      ...[...hosts].flatMap((host) =>
        addresses.map((address): Answer => ({ name: `${host}.local`, type: 'A', ttl, data: address })),
      ),
    ];
  }

  private async close(): Promise<void> {
    this.context.clock.clearInterval(this.rescanTimer);
    this.rescanTimer = undefined;
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(
      links.map(async ({ mdns }) => {
        if (this.advertised.length > 0)
          await new Promise<void>((resolve) =>
            mdns.respond({ answers: this.advertised.flatMap((a) => this.serviceRecords(a, 0)) }, () =>
              resolve(),
            ),
          );
        await new Promise<void>((resolve) => mdns.destroy(() => resolve()));
      }),
    );
  }
}

/** A non-internal IPv4 address of the host with its interface and netmask. */
export interface InterfaceAddress {
  name: string;
  address: string;
  netmask: string;
}

/** The host's non-internal IPv4 addresses by interface (the announcer's links and the browse's). */
export function ipv4Interfaces(): InterfaceAddress[] {
  return Object.entries(networkInterfaces()).flatMap(([name, list]) =>
    (list ?? [])
      .filter((a) => a.family === 'IPv4' && !a.internal)
      .map((a) => ({ name, address: a.address, netmask: a.netmask })),
  );
}

function ipv4Number(address: string): number | undefined {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255))
    return undefined;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

/** The interface of the IPv4 default route (/proc/net/route: destination 00000000), when known. */
function defaultRouteInterface(): string | undefined {
  try {
    const lines = readFileSync('/proc/net/route', 'utf8').split('\n').slice(1);
    return lines.map((line) => line.trim().split(/\s+/)).find((fields) => fields[1] === '00000000')?.[0];
  } catch {
    return undefined;
  }
}

/**
 * The addresses an mDNS record set carries (RFC 6762 §15: a host on several links answers on each
 * link with the address it has on that link). For a query: the addresses of the interface whose
 * subnet holds the querier's address, so a consumer on the LAN never sees a container bridge's
 * (docker0) address it cannot reach. For an announcement (no querier), or a querier on no
 * interface's subnet: the default route's interface's addresses, all when that is not known. The
 * announcer uses it only for its one default socket of a host without an IPv4 interface; with
 * interfaces, each interface's socket carries that interface's addresses.
 */
export function addressesFor(
  querier: string | undefined,
  interfaces: readonly InterfaceAddress[],
  defaultInterface: string | undefined,
): string[] {
  const local = onSubnet(querier, interfaces);
  if (local.length > 0) return local.map((entry) => entry.address);
  const routed = interfaces.filter((entry) => entry.name === defaultInterface);
  return (routed.length > 0 ? routed : interfaces).map((entry) => entry.address);
}

/** The entries of `interfaces` whose subnet holds `querier` (none for no or a non-IPv4 querier). */
function onSubnet(querier: string | undefined, interfaces: readonly InterfaceAddress[]): InterfaceAddress[] {
  const from = querier === undefined ? undefined : ipv4Number(querier);
  if (from === undefined) return [];
  return interfaces.filter((entry) => {
    const address = ipv4Number(entry.address);
    const mask = ipv4Number(entry.netmask);
    return address !== undefined && mask !== undefined && (address & mask) >>> 0 === (from & mask) >>> 0;
  });
}
