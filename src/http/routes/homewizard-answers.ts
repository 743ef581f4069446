/**
 * What the HomeWizard P1 personality answers (docs/architecture.md#homewizard-personality), shared by
 * its routes on the API's port (src/http/routes/homewizard.ts) and its own port
 * (src/http/routes/homewizard-server.ts): device information, the recent measurement and the last
 * valid raw DSMR telegram, over the store of the meter it serves.
 */
import type { AppContext } from '../../context.js';
import { dataOf, deviceInfo, staleDataOf } from '../../device/homewizard/api-v1.js';
import { checkDsmrCrc } from '../../meter/dsmr/crc16-arc.js';
import { DsmrFramer } from '../../meter/dsmr/framer.js';
import type { Reading } from '../../reading/reading.js';
import type { ReadingStore } from '../../reading/store.js';
import { SmoothedFeed } from '../../device/smoothing.js';

/**
 * The last valid raw DSMR telegram of one store, framed from its raw events by the DSMR framer. HomeWizard
 * (api-documentation docs/v1/telegram.mdx): "the most recent, valid telegram"; "the checksum is
 * validated when present, telegrams with an invalid checksum are rejected"; served unprocessed.
 */
class TelegramKeeper {
  private readonly framer = new DsmrFramer();
  last: Buffer | undefined;
  /** A meter that sent a valid CRC is held to CRCs (DSMR 4/5), as the decoder holds it. */
  private crcSeen = false;
  private readonly onRaw = (chunk: Buffer) => {
    for (const event of this.framer.push(chunk)) {
      if (!('frame' in event)) continue;
      const crc = checkDsmrCrc(event.frame).kind;
      if (crc === 'match') this.crcSeen = true;
      if (crc === 'match' || (crc === 'absent' && !this.crcSeen)) this.last = event.frame;
    }
  };

  constructor(readonly store: ReadingStore) {
    store.on('raw', this.onRaw);
  }

  close(): void {
    this.store.off('raw', this.onRaw);
  }
}

/** The personality's answers, shared by the API's port and the personality's own port. */
export interface HomewizardAnswers {
  /** Whether the personality is on and its meter exists. */
  on(): boolean;
  api(): string | undefined;
  data(): string | undefined;
  telegram(): Buffer | undefined;
}

/**
 * The answers over the store the personality serves, which its output sets (`serve`): the store of
 * the configured meter while the personality is on and that meter runs, else none (404), never
 * another meter's (docs/architecture.md#output-contract).
 */
export interface ServedAnswers extends HomewizardAnswers {
  serve(store: ReadingStore | undefined): void;
}

export function homewizardAnswers(ctx: AppContext): ServedAnswers {
  const settings = () => ctx.config.config.services.emulate.homewizard;
  let served: ReadingStore | undefined;
  let keeper: TelegramKeeper | undefined;
  // The answer is serialised once per reading (and Wi-Fi name), not per request: a consumer polling
  // many times a second costs a string lookup (docs/architecture.md#homewizard-personality).
  let cached: { reading: Reading | undefined; ssid: string; text: string } | undefined;
  // Power smoothed once per reading when services.emulate.homewizard.smoothing asks for it.
  const feed = new SmoothedFeed(
    () => served,
    () => settings().smoothing,
  );
  const telegram = (): Buffer | undefined =>
    served && served.meter.protocol === 'DSMR' && served.latest ? keeper?.last : undefined;
  const dataText = (): string => {
    const reading = feed.latest();
    const sta = ctx.config.config.wifi.sta;
    const ssid = sta.enable ? sta.name : '';
    if (!cached || cached.reading !== reading || cached.ssid !== ssid) {
      const body = reading ? dataOf(reading, { ssid }, telegram()) : staleDataOf({ ssid });
      cached = { reading, ssid, text: JSON.stringify(body) };
    }
    return cached.text;
  };
  return {
    serve(store) {
      if (store === served) return;
      keeper?.close();
      keeper = store ? new TelegramKeeper(store) : undefined;
      served = store;
      cached = undefined;
      // The feed follows the new store from now on, so an average covers the readings from here.
      feed.latest();
    },
    on: () => served !== undefined,
    api: () => (served ? JSON.stringify(deviceInfo(ctx.system.id, ctx.system.firmware)) : undefined),
    data: () => (served ? dataText() : undefined),
    telegram,
  };
}
