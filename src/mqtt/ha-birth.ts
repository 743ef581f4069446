import { systemClock, type Clock, type Timer } from '../clock.js';
/** Home Assistant publishes this on `<prefix>/status` when it (re)starts (HA MQTT birth message). */
const HA_BIRTH_PAYLOAD = 'online';
/** HA's advice: wait a random moment after the birth message so that not every device answers at once. */
const BIRTH_DELAY_MS = { min: 1000, max: 3000 };

/** Answers HA's birth message (a live, not a retained `online`) by announcing everything again, once per burst. */
export class BirthAnswer {
  private timer: Timer | undefined;

  constructor(
    private readonly answer: () => void,
    private readonly random: () => number = Math.random,
    private readonly clock: Clock = systemClock,
  ) {}

  static statusTopic(prefix: string): string {
    return `${prefix}/status`;
  }

  onStatus(payload: Buffer, retained: boolean): void {
    if (retained || payload.toString() !== HA_BIRTH_PAYLOAD || this.timer) return;
    const delay = BIRTH_DELAY_MS.min + (BIRTH_DELAY_MS.max - BIRTH_DELAY_MS.min) * this.random();
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.answer();
    }, delay);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
