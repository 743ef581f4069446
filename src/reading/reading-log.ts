import type { Logger } from '../log.js';
import type { Service } from '../service.js';
import type { MeterState } from './meter-state.js';
import type { Reading } from './reading.js';
import type { ReadingStore } from './store.js';

/** One console line per period (and the first reading at once), so a user sees data flowing. */
const SUMMARY_PERIOD_MS = 10_000;

function summary(reading: Reading): string {
  const v = (obis: string, unit: string): string | undefined => {
    const value = reading.values.get(obis)?.value;
    return value === undefined ? undefined : `${value} ${unit}`;
  };
  const parts = [
    ['import', v('1.7.0', 'kW')],
    ['export', v('2.7.0', 'kW')],
    ['energy in', v('1.8.0', 'kWh')],
    ['energy out', v('2.8.0', 'kWh')],
    ['L1', v('32.7.0', 'V')],
    ['tariff', reading.tariff === undefined ? undefined : String(reading.tariff)],
  ].filter((part): part is [string, string] => part[1] !== undefined);
  return parts.map(([name, text]) => `${name} ${text}`).join(', ');
}

export class ReadingLog implements Service {
  readonly name = 'reading log';
  private lastLogged = 0;
  private readonly onReading = (reading: Reading) => {
    if (reading.receivedAt - this.lastLogged < SUMMARY_PERIOD_MS) return;
    this.lastLogged = reading.receivedAt;
    this.logger.info(`reading ${this.context.store.reportId} (${reading.protocol}): ${summary(reading)}`);
  };
  private readonly onMeter = (meter: MeterState) => {
    this.logger.info(
      `meter status ${meter.status} (${meter.interface}${meter.protocol ? `, ${meter.protocol}` : ''})`,
    );
  };

  constructor(
    private readonly context: { readonly store: ReadingStore },
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.context.store.subscribe('reading-log', 'reading', this.onReading);
    this.context.store.subscribe('reading-log', 'meter', this.onMeter);
  }

  async stop(): Promise<void> {
    this.context.store.off('reading', this.onReading);
    this.context.store.off('meter', this.onMeter);
  }
}
