/** How long a status answer is kept. */
const STATUS_CACHE_MS = 5_000;

/**
 * A connection's status as nmcli last answered it: /api/v1/system asks often and nmcli costs a
 * process per question, so an answer is kept 5 s; a change of the connection drops it.
 */
export class StatusCache<T> {
  private entry: { at: number; value: Promise<T> } | undefined;

  constructor(
    private readonly now: () => number,
    private readonly read: () => Promise<T>,
  ) {}

  get(): Promise<T> {
    const now = this.now();
    if (!this.entry || now - this.entry.at >= STATUS_CACHE_MS) this.entry = { at: now, value: this.read() };
    return this.entry.value;
  }

  drop(): void {
    this.entry = undefined;
  }
}
