/**
 * The retained discovery configs on the broker under this gateway's system id
 * (docs/architecture.md#home-assistant-discovery): which ones this run has sent, which ones the
 * broker holds (sent by this run or found there from an earlier one), and the clean-up of those no
 * longer wanted by an empty retained payload, which makes HA remove the entity.
 */
export class RetainedConfigs {
  /** Config topics the broker retains, as far as this run knows. */
  private readonly retained = new Set<string>();
  /** Config topics sent since the last forgetSent() (a reconnect, new device facts). */
  private readonly sent = new Set<string>();

  constructor(private readonly publish: (topic: string, payload: string) => boolean) {}

  /** `<prefix>/<component>/<system id>/+/config` for every component: what to subscribe to. */
  static filterOf(prefix: string, systemId: string): string {
    return `${prefix}/+/${systemId}/+/config`;
  }

  /** Whether `topic` is one of this gateway's config topics (any component, one key level). */
  static isConfigTopic(prefix: string, systemId: string, topic: string): boolean {
    const parts = topic.split('/');
    const head = prefix.split('/');
    if (parts.length !== head.length + 4 || parts.at(-1) !== 'config') return false;
    return (
      head.every((part, index) => parts[index] === part) &&
      parts[head.length] !== '' &&
      parts[head.length + 1] === systemId &&
      parts[head.length + 2] !== ''
    );
  }

  /** Sends a config unless it was sent already; one the link dropped (offline) goes next time. */
  send(topic: string, config: Record<string, unknown>): void {
    if (this.sent.has(topic)) return;
    if (!this.publish(topic, JSON.stringify(config))) return;
    this.sent.add(topic);
    this.retained.add(topic);
  }

  /** The broker has a non-empty retained config there (this run's or an earlier one's). */
  found(topic: string): void {
    this.retained.add(topic);
  }

  /** Everything is sent again on the next send() (the broker may have lost it, or it changed). */
  forgetSent(): void {
    this.sent.clear();
  }

  /** A new prefix or system id: the old topics are no longer ours to track. */
  forgetAll(): void {
    this.sent.clear();
    this.retained.clear();
  }

  /** Clears every retained config not in `wanted` (all of them for an empty set). */
  clearExcept(wanted: ReadonlySet<string>): void {
    for (const topic of this.retained) {
      if (wanted.has(topic)) continue;
      if (this.publish(topic, '')) {
        this.retained.delete(topic);
        this.sent.delete(topic);
      }
    }
  }
}
