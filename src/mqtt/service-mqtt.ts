import type { AppContext } from '../context.js';
import type { DiscoveryLink } from './ha-topics.js';
import {
  CommandTopics,
  runSettingCommand,
  type SettingCommandCounts,
  type SettingCommands,
} from './setting-commands.js';

/**
 * A service's topics beside the gateway's other topics under `meter-gateway/<system id>/`
 * (./ha-topics.ts): the peak guard's `peak/` (docs/architecture.md#peak-guard-outputs) and the
 * export limiter's `export_limiter/` (docs/architecture.md#export-limiter).
 */
export interface ServiceTopics<C extends string> {
  /** Retained: the service's state, the JSON of its GET route. */
  state: string;
  /** Retained: the service's settings that its Home Assistant controls show. */
  settings: string;
  /** Not retained: one JSON message per event, `event_type` first (what HA's event entity reads). */
  event: string;
  /** Command topics: `<base>/<command>/set`. */
  command: Readonly<Record<C, string>>;
}

export function serviceTopics<C extends string>(
  systemId: string,
  folder: string,
  commands: readonly C[],
): ServiceTopics<C> {
  const base = `meter-gateway/${systemId}/${folder}`;
  const command = {} as Record<C, string>;
  for (const name of commands) command[name] = `${base}/${name}/set`;
  return { state: `${base}/state`, settings: `${base}/settings`, event: `${base}/event`, command };
}

/**
 * What the peak guard's and the export limiter's MQTT publishers share, one per broker link: the
 * retained state, sent only when it changed; the retained settings; the events, not retained;
 * the command topics (./setting-commands.ts). While the service is off nothing of it is published
 * but its commands are still taken, and switching it off clears both retained topics and has
 * discovery withdraw the entities (`reannounce`). A subclass follows its service's feed, says what
 * its state and settings messages hold, and registers its feed listeners' removers.
 */
export abstract class ServiceMqtt<C extends string, S extends { enabled: boolean }> {
  /** What the last state message sent stands for; a message with the same key is not sent again. */
  private sentKey: string | undefined;
  private readonly commands: CommandTopics<C>;
  readonly topics: ServiceTopics<C>;
  /** The feed listeners' removers, run by `stop`. */
  protected removers: (() => void)[] = [];

  constructor(
    protected readonly ctx: AppContext,
    protected readonly link: DiscoveryLink,
    spec: SettingCommands<C>,
    counts: SettingCommandCounts,
    private readonly reannounce: () => void,
    /** The settings of the MQTT output's slice (docs/architecture.md#output-contract); `configure` follows them. */
    protected settings: S,
  ) {
    this.topics = serviceTopics(ctx.system.id, spec.folder, spec.commands);
    this.commands = new CommandTopics(link, this.topics.command, (command, payload) =>
      runSettingCommand(ctx, spec, counts, command, payload),
    );
  }

  protected enabled(): boolean {
    return this.settings.enabled;
  }

  /** A (re)connect: the broker may have lost the retained state; an earlier run may have left one. */
  connected(): void {
    this.sentKey = undefined;
    if (!this.enabled()) return this.clear();
    this.publishSettings();
    this.publishCurrentState();
  }

  /** A message on a command topic runs the command; false for other topics. A retained command is ignored. */
  onMessage(topic: string, payload: Buffer, retained: boolean): boolean {
    return this.commands.onMessage(topic, payload, retained);
  }

  stop(): void {
    for (const remove of this.removers) remove();
    this.removers = [];
    this.commands.stop();
  }

  /** New settings of the MQTT output: switched on or off, the retained settings sent again. */
  configure(settings: S): void {
    if (JSON.stringify(settings) === JSON.stringify(this.settings)) return;
    const wasEnabled = this.enabled();
    this.settings = settings;
    const enabled = this.enabled();
    if (enabled !== wasEnabled) {
      if (!enabled) this.clear();
      this.reannounce();
    }
    if (enabled) this.publishSettings();
  }

  /** Sends the service's current state (after a connect). */
  protected abstract publishCurrentState(): void;

  /** The retained settings message's JSON value. */
  protected abstract settingsMessage(settings: S): object;

  /**
   * Sends a state message while the service is on and the link up: `compose` gives the key of
   * what it stands for and the message (nothing when the service has no state to show yet); a key
   * equal to the last one sent sends nothing, and its message is never built (this runs per
   * update of the service, most of them unchanged).
   */
  protected sendState(compose: () => { key: string; payload: () => string } | undefined): void {
    if (!this.enabled() || !this.link.connected) return;
    const state = compose();
    if (state === undefined || state.key === this.sentKey) return;
    if (
      this.link.publish({ topic: this.topics.state, payload: state.payload(), qos: 1, retain: true }, 'drop')
    )
      this.sentKey = state.key;
  }

  /** One event message, not retained, queued while the link is down. */
  protected sendEvent(message: Record<string, unknown>): void {
    this.link.publish(
      { topic: this.topics.event, payload: JSON.stringify(message), qos: 1, retain: false },
      'queue',
    );
  }

  private publishSettings(): void {
    const payload = JSON.stringify(this.settingsMessage(this.settings));
    this.link.publish({ topic: this.topics.settings, payload, qos: 1, retain: true }, 'drop');
  }

  /** Empty retained payloads remove the retained state and settings from the broker. */
  private clear(): void {
    this.sentKey = undefined;
    for (const topic of [this.topics.state, this.topics.settings])
      this.link.publish({ topic, payload: '', qos: 1, retain: true }, 'drop');
  }
}
