import type { AppContext } from '../context.js';
import type { FamilySpec } from '../metrics/families.js';
import type { MetricsContributor } from '../metrics/gateway-samples.js';
import type { DiscoveryLink } from './ha-topics.js';

/**
 * The mechanism of the services' MQTT commands (the peak guard's ./peak-commands.ts, the export
 * limiter's ./limiter-commands.ts): a command topic `<base>/<command>/set` stands for one setting
 * path; its payload becomes the setting's value and is written through the config store, exactly
 * as PUT /api/v1/settings does: the same schema and rules, written atomically to the settings
 * state file (the admin's file is never rewritten, a change made in Home Assistant survives a
 * restart) and applied live. A refused command is logged and counted; nothing of it is stored.
 * Size and rate are bounded before, by the link's command gate (./command-gate.ts).
 */

/** The setting's value a payload stands for, or why it stands for none. */
export type CommandValue = { ok: true; value: unknown } | { ok: false; reason: string };

/** One service's commands: their topics, the setting each one writes and how its payload is read. */
export interface SettingCommands<C extends string> {
  /** The service as the log names it ("peak guard", "export limiter"). */
  subject: string;
  /** The service's folder under `meter-gateway/<system id>/` ("peak", "export_limiter"). */
  folder: string;
  /** The commands in the order their topics are subscribed. */
  commands: readonly C[];
  paths: Readonly<Record<C, string>>;
  value(command: C, payload: string): CommandValue;
}

/** How many commands were taken and refused since start (the /metrics series). */
export class SettingCommandCounts {
  accepted = 0;
  refused = 0;
}

/** Payloads in the log: at most 64 printable characters (hostile input is not echoed whole). */
function shownPayload(payload: string): string {
  const cut = payload.length > 64 ? `${payload.slice(0, 64)}…` : payload;
  return JSON.stringify(cut.replace(/[^\x20-\x7e]/g, '?'));
}

/** Runs one command: validated and written like PUT /api/v1/settings, or refused (logged, counted). */
export function runSettingCommand<C extends string>(
  ctx: AppContext,
  commands: SettingCommands<C>,
  counts: SettingCommandCounts,
  command: C,
  payload: string,
): boolean {
  const path = commands.paths[command];
  const what = `mqtt: ${commands.subject} ${command} command`;
  const refuse = (reason: string): false => {
    counts.refused += 1;
    ctx.logger.warn(`${what} ${shownPayload(payload)} refused: ${path} ${reason}`);
    return false;
  };
  const parsed = commands.value(command, payload);
  if (!parsed.ok) return refuse(parsed.reason);
  const result = ctx.config.apply(new Map([[path, parsed.value]]));
  if (!result.ok) return refuse(result.issues.map((issue) => issue.message).join('; '));
  counts.accepted += 1;
  ctx.logger.info(`${what}: ${path} = ${JSON.stringify(parsed.value)}`);
  void result.settled.then((failures) => {
    for (const failure of failures)
      ctx.logger.error(`${what} stored, but ${failure.owner} failed: ${failure.message}`);
  });
  return true;
}

/** The commands' counters on /metrics: one counter family labelled by result (accepted, refused). */
export function settingCommandMetrics(family: FamilySpec, counts: SettingCommandCounts): MetricsContributor {
  return {
    families: [family],
    collect(add) {
      add(family, { result: 'accepted' }, counts.accepted);
      add(family, { result: 'refused' }, counts.refused);
    },
  };
}

/**
 * The command topics of one service on one broker link: subscribed while the service's publisher
 * lives, each message on one of them run as its command. A retained command is taken off the
 * topic but not run: it would run again at every reconnect.
 */
export class CommandTopics<C extends string> {
  private readonly commandOf = new Map<string, C>();

  constructor(
    private readonly link: DiscoveryLink,
    topics: Readonly<Record<C, string>>,
    private readonly run: (command: C, payload: string) => void,
  ) {
    for (const [command, topic] of Object.entries(topics) as [C, string][])
      this.commandOf.set(topic, command);
    for (const topic of this.commandOf.keys()) link.subscribe(topic);
  }

  /** A message on a command topic runs the command; false for other topics. */
  onMessage(topic: string, payload: Buffer, retained: boolean): boolean {
    const command = this.commandOf.get(topic);
    if (command === undefined) return false;
    if (!retained) this.run(command, payload.toString('utf8'));
    return true;
  }

  stop(): void {
    for (const topic of this.commandOf.keys()) this.link.unsubscribe(topic);
  }
}
