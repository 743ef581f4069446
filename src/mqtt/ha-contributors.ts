import type { DiscoveryTopics, HaEntity } from './ha-entities.js';

/**
 * The seam through which modules add entities to the gateway's Home Assistant device
 * (docs/architecture.md#home-assistant-discovery). Discovery holds a plain list of contributors
 * and asks each for its current entities whenever it (re)announces: at connect, at HA's birth
 * message, when the settings change. The gateway's own diagnostics and restart button are one
 * contributor (./ha-gateway-entities.ts); a module with commands of its own (buttons, switches)
 * is another, in a file of its own.
 */

/**
 * An entity with topics of its own: the config fields beyond name, unique_id, entity category,
 * classes, device and origin (state_topic and value_template, or command_topic and payload_press,
 * ...), and what a message on its command topic does.
 */
export interface HaContribution {
  entity: HaEntity;
  fields: Record<string, unknown>;
  /** Called for each non-retained message on `fields.command_topic`. */
  onCommand?: (payload: string) => void;
}

/** Asked for its entities at each announcement; returns them all (an entity it drops is removed from HA). */
export type EntityContributor = (topics: DiscoveryTopics) => readonly HaContribution[];

/** The command topics of a set of contributions and their handlers. */
function commandHandlers(contributions: readonly HaContribution[]): Map<string, (payload: string) => void> {
  const handlers = new Map<string, (payload: string) => void>();
  for (const { fields, onCommand } of contributions) {
    const topic = fields.command_topic;
    if (onCommand && typeof topic === 'string') handlers.set(topic, onCommand);
  }
  return handlers;
}

/** The link calls contributed entities need: their command topics are subscribed while wanted. */
export type CommandLink = { subscribe(topic: string): void; unsubscribe(topic: string): void };

/** The contributors' current entities and the subscriptions of their command topics. */
export class Contributions {
  list: readonly HaContribution[] = [];
  private commands = new Map<string, (payload: string) => void>();

  constructor(
    private readonly contributors: readonly EntityContributor[],
    private readonly link: CommandLink,
  ) {}

  /** Asks every contributor again; subscribes new command topics, drops vanished ones. */
  collect(topics: DiscoveryTopics): void {
    const list = this.contributors.flatMap((contribute) => contribute(topics));
    const commands = commandHandlers(list);
    for (const topic of this.commands.keys()) if (!commands.has(topic)) this.link.unsubscribe(topic);
    for (const topic of commands.keys()) if (!this.commands.has(topic)) this.link.subscribe(topic);
    this.list = list;
    this.commands = commands;
  }

  /** Runs the command of `topic`; false when it is no command topic. A retained command is ignored. */
  handle(topic: string, payload: Buffer, retained: boolean): boolean {
    const command = this.commands.get(topic);
    if (!command) return false;
    // A retained command would run again at every reconnect (a restart loop for a restart button).
    if (!retained) command(payload.toString());
    return true;
  }

  stop(): void {
    for (const topic of this.commands.keys()) this.link.unsubscribe(topic);
    this.commands.clear();
  }
}
