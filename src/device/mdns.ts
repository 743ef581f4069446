import makeMdns from 'multicast-dns';
import type { AppContext, ServiceStatus } from '../context.js';
import type { Timer } from '../clock.js';
import type { Logger } from '../log.js';
import type { AppConfig } from '../config/types.js';
import type { DeclaredOutput, OutputStatus, OutputView, StatusPort } from '../output.js';
import {
  addressesFor,
  answeringLink,
  defaultRouteInterface,
  ipv4Interfaces,
  ipv4InterfacesByName,
  type InterfaceAddress,
} from './mdns-interfaces.js';
import {
  allRecords,
  homewizardService,
  responseTo,
  sameService,
  serviceRecords,
  shellyServices,
  TTL,
  type Advertised,
  type RecordOwner,
} from './mdns-records.js';

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
    const unchanged =
      wanted.length === this.advertised.length &&
      wanted.every((w, index) => sameService(w, this.advertised[index]!));
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

  /** Whose records the announcer sends: this host name and system id. */
  private owner(): RecordOwner {
    return { hostName: this.hostName(), systemId: this.context.system.id };
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
    if (http !== undefined && this.settings.shelly)
      wanted.push(...shellyServices(this.context.system.id, http));
    // The personality's own port when it has one (services.emulate.homewizard.port), else the API's.
    const homewizard = port(this.context.services.get('homewizard')) ?? http;
    if (homewizard !== undefined && this.settings.homewizard)
      wanted.push(homewizardService(this.context.system.id, homewizard));
    return wanted;
  }

  /** Announces what runs now and says goodbye for what went away (RFC 6762 §8.3, §10.1). */
  private async announce(): Promise<void> {
    const wanted = this.wanted();
    const gone = this.advertised.filter((a) => !wanted.some((w) => sameService(w, a)));
    if (gone.length > 0)
      for (const link of this.links.values())
        link.mdns.respond({ answers: gone.flatMap((a) => serviceRecords(this.owner(), a, 0)) });
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
    link.mdns.respond({ answers: allRecords(this.owner(), this.advertised, TTL, this.linkAddresses(link)) });
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

  /** Opens a socket for each interface that has none and closes those of vanished or changed ones. */
  private scan(): Map<string, Link> {
    const interfaces = ipv4InterfacesByName();
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

  /** Whether `link` answers a query from `querier` (the one default socket answers every query). */
  private answers(link: Link, querier: string | undefined): boolean {
    if (link.name === '') return true;
    return answeringLink([...this.links.values()], querier, defaultRouteInterface) === link;
  }

  private answer(
    link: Link,
    questions: ReadonlyArray<{ name: string; type: string }>,
    querier?: string,
  ): void {
    if (!this.answers(link, querier)) return;
    const records = allRecords(this.owner(), this.advertised, TTL, this.linkAddresses(link, querier));
    const response = responseTo(records, questions);
    if (response) link.mdns.respond(response);
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
            mdns.respond(
              { answers: this.advertised.flatMap((a) => serviceRecords(this.owner(), a, 0)) },
              () => resolve(),
            ),
          );
        await new Promise<void>((resolve) => mdns.destroy(() => resolve()));
      }),
    );
  }
}
