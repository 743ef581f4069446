import type { AppContext } from '../context.js';
import type { PeakEvent } from '../peak/engine-types.js';
import type { PeakGuard } from '../peak/peak-guard.js';
import type { PeakView } from '../contracts/peak.js';
import { localIso } from '../peak/window.js';
import type { PeakSettingsView } from './template-publisher.js';
import type { DiscoveryLink } from './ha-topics.js';
import { PEAK_EVENT_TYPES } from './ha-peak.js';
import { PEAK_COMMANDS, runPeakCommand, type PeakCommand, type PeakCommandCounts } from './peak-commands.js';
import { peakTopics, type PeakTopics } from './peak-topics.js';

/**
 * What the MQTT output needs of the peak guard: its API view and its emitter (subscribed, never
 * polled). Each subscription returns its remover, so the publisher of a closed link leaves no
 * listener behind.
 */
export interface PeakFeed {
  /** GET /api/v1/peak's answer. */
  view(): PeakView;
  onUpdate(listener: () => void): () => void;
  onEvent(listener: (event: PeakEvent) => void): () => void;
}

export function peakFeedOf(_ctx: AppContext, guard: PeakGuard): PeakFeed {
  return {
    view: () => guard.view(),
    onUpdate(listener) {
      guard.on('update', listener);
      return () => guard.off('update', listener);
    },
    onEvent(listener) {
      guard.on('event', listener);
      return () => guard.off('event', listener);
    },
  };
}

/** The view without the window's clock fields: what a state message is sent again for. */
function changeKey(view: PeakView): string {
  const window = view.window as Record<string, unknown> | null | undefined;
  return JSON.stringify({ ...view, window: window && { ...window, elapsed_s: null, remaining_s: null } });
}

const EVENT_TYPES: ReadonlySet<string> = new Set(PEAK_EVENT_TYPES);

/**
 * The peak guard on MQTT (docs/architecture.md#peak-guard-outputs), one per broker link: the
 * retained state (GET /api/v1/peak's JSON), sent when it changed, so at most once per reading
 * (the clock fields alone send nothing); the retained settings; the events, not retained; the
 * command topics. While the guard is off nothing peak-related is published, and switching it off
 * clears both retained topics and has discovery withdraw the entities (`reannounce`).
 */
export class PeakMqtt {
  readonly topics: PeakTopics;
  private sentKey: string | undefined;
  private wasEnabled: boolean;
  private removers: (() => void)[] = [];
  private readonly commandOf = new Map<string, PeakCommand>();

  constructor(
    private readonly ctx: AppContext,
    private readonly link: DiscoveryLink,
    private readonly feed: PeakFeed,
    private readonly counts: PeakCommandCounts,
    private readonly reannounce: () => void,
    /** The settings of the MQTT output's slice (docs/architecture.md#output-contract); `configure` follows them. */
    private settings: PeakSettingsView,
  ) {
    this.topics = peakTopics(ctx.system.id);
    this.wasEnabled = this.enabled();
    for (const command of PEAK_COMMANDS) this.commandOf.set(this.topics.command[command], command);
    for (const topic of this.commandOf.keys()) link.subscribe(topic);
    this.removers.push(feed.onUpdate(() => this.publishState()));
    this.removers.push(feed.onEvent((event) => this.publishEvent(event)));
  }

  enabled(): boolean {
    return this.settings.enabled;
  }

  /** A (re)connect: the broker may have lost the retained state; an earlier run may have left one. */
  connected(): void {
    this.sentKey = undefined;
    if (!this.enabled()) return this.clear();
    this.publishSettings();
    this.publishState();
  }

  /** A message on a command topic runs the command; false for other topics. A retained command is ignored. */
  onMessage(topic: string, payload: Buffer, retained: boolean): boolean {
    const command = this.commandOf.get(topic);
    if (command === undefined) return false;
    // A retained command would run again at every reconnect.
    if (!retained) runPeakCommand(this.ctx, this.counts, command, payload.toString('utf8'));
    return true;
  }

  stop(): void {
    for (const remove of this.removers) remove();
    this.removers = [];
    for (const topic of this.commandOf.keys()) this.link.unsubscribe(topic);
  }

  /** New settings of the MQTT output: switched on or off, the retained settings sent again. */
  configure(settings: PeakSettingsView): void {
    if (JSON.stringify(settings) === JSON.stringify(this.settings)) return;
    this.settings = settings;
    const enabled = this.enabled();
    if (enabled !== this.wasEnabled) {
      this.wasEnabled = enabled;
      if (!enabled) this.clear();
      this.reannounce();
    }
    if (enabled) this.publishSettings();
  }

  private publishState(): void {
    if (!this.enabled() || !this.link.connected) return;
    const view = this.feed.view();
    // The guard not running yet (it reconciles after this listener): its first update follows.
    if (view.state === 'off') return;
    const key = changeKey(view);
    if (key === this.sentKey) return;
    const payload = JSON.stringify(view);
    if (this.link.publish({ topic: this.topics.state, payload, qos: 1, retain: true }, 'drop'))
      this.sentKey = key;
  }

  private publishSettings(): void {
    const { enabled, limit_kw, mode } = this.settings;
    const payload = JSON.stringify({ enabled, limit_kw, mode });
    this.link.publish({ topic: this.topics.settings, payload, qos: 1, retain: true }, 'drop');
  }

  private publishEvent(event: PeakEvent): void {
    if (!this.enabled() || !EVENT_TYPES.has(event.type)) return;
    const message: Record<string, unknown> = { event_type: event.type, at: localIso(event.at) };
    if (event.stage !== undefined) message.stage = event.stage;
    if (event.kw !== undefined) message.kw = Math.round(event.kw * 1000) / 1000;
    this.link.publish(
      { topic: this.topics.event, payload: JSON.stringify(message), qos: 1, retain: false },
      'queue',
    );
  }

  /** Empty retained payloads remove the retained state and settings from the broker. */
  private clear(): void {
    this.sentKey = undefined;
    for (const topic of [this.topics.state, this.topics.settings])
      this.link.publish({ topic, payload: '', qos: 1, retain: true }, 'drop');
  }
}
