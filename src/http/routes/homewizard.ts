import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import { dataOf, deviceInfo, errorBody, staleDataOf } from '../../device/homewizard/api-v1.js';
import { checkDsmrCrc } from '../../meter/dsmr/crc16-arc.js';
import { DsmrFramer } from '../../meter/dsmr/framer.js';
import type { Reading } from '../../reading/reading.js';
import type { ReadingStore } from '../../reading/store.js';
import type { RouteDoc, Router } from '../router.js';
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

function send(
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType: string,
  head: boolean,
): void {
  response.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  response.end(head ? undefined : body);
}

function sendJson(response: ServerResponse, status: number, value: unknown, head: boolean): void {
  send(response, status, JSON.stringify(value), 'application/json', head);
}

const HW_DOC = 'HomeWizard P1 personality (services.emulate.homewizard); off: 404 like an unknown path';

/** HomeWizard's own error body (`{"error": {"id", "description"}}`), as its 404 carries it. */
const HW_ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['id', 'description'],
      properties: { id: { type: 'integer' }, description: { type: 'string' } },
    },
  },
};

/** The answers of a HomeWizard route: the personality's content, or 404 while it is off. */
function hwResponses(contentType: string): NonNullable<RouteDoc['responses']> {
  const content = { type: contentType === 'application/json' ? 'object' : 'string' };
  return {
    200: { description: 'the HomeWizard answer', contentType, schema: content },
    404: { description: 'personality off, or no such data (HomeWizard error body)', schema: HW_ERROR },
  };
}

/**
 * The HomeWizard P1 personality on the device's HTTP server (docs/architecture.md#homewizard-personality):
 * `GET /api`, `/api/v1/data`, `/api/v1/telegram`. None of these paths is a whatwatt Go path. Off: 404.
 * The local API v1 has no authentication, so these routes stay open while system.protection is on and
 * the personality is enabled (consumers such as evcc or Home Assistant send no credentials).
 */
export function registerHomewizardRoutes(router: Router, ctx: AppContext): void {
  const settings = () => ctx.config.config.services.emulate.homewizard;
  const open = (config: typeof ctx.config.config) => config.services.emulate.homewizard.enable;
  let keeper: TelegramKeeper | undefined;
  /** The store of the served meter, undefined while the personality is off or the meter is absent. */
  const storeOf = (): ReadingStore | undefined => {
    const { enable, meter } = settings();
    const store = enable ? ctx.meters.get(meter)?.store : undefined;
    if (keeper?.store !== store) {
      keeper?.close();
      keeper = store ? new TelegramKeeper(store) : undefined;
    }
    return store;
  };
  // The answer is serialised once per reading (and Wi-Fi name), not per request: a consumer polling
  // many times a second costs a string lookup (docs/architecture.md#homewizard-personality).
  let cached: { reading: Reading | undefined; ssid: string; text: string } | undefined;
  // Power smoothed once per reading when services.emulate.homewizard.smoothing asks for it.
  const feed = new SmoothedFeed(storeOf, () => settings().smoothing);
  const dataText = (): string => {
    const reading = feed.latest();
    const sta = ctx.config.config.wifi.sta;
    const ssid = sta.enable ? sta.name : '';
    if (!cached || cached.reading !== reading || cached.ssid !== ssid) {
      const body = reading ? dataOf(reading, { ssid }) : staleDataOf({ ssid });
      cached = { reading, ssid, text: JSON.stringify(body) };
    }
    return cached.text;
  };
  const notFound = (response: ServerResponse, head: boolean) =>
    sendJson(response, 404, errorBody(404, 'Not found'), head);
  ctx.config.on('change', () => void storeOf());
  ctx.meters.on('added', () => void storeOf());
  storeOf();

  /** A GET (and HEAD) route of the personality: 200 with what `body` gives, 404 when it gives nothing. */
  const serve = (
    path: string,
    summary: string,
    contentType: string,
    body: () => string | Buffer | undefined,
  ) =>
    router.add(
      'GET',
      path,
      (request, response) => {
        const head = request.method === 'HEAD';
        const text = body();
        if (text === undefined) return notFound(response, head);
        send(response, 200, text, contentType, head);
      },
      { open, doc: { summary, responses: hwResponses(contentType) } },
    );
  serve('/api', `Device information (${HW_DOC})`, 'application/json', () =>
    storeOf() ? JSON.stringify(deviceInfo(ctx.system.id, ctx.system.firmware)) : undefined,
  );
  serve('/api/v1/data', `Recent measurement (${HW_DOC})`, 'application/json', () =>
    storeOf() ? dataText() : undefined,
  );
  serve(
    '/api/v1/telegram',
    `Last raw DSMR telegram (${HW_DOC}); 404 when the meter is not DSMR`,
    'text/plain',
    () => {
      const store = storeOf();
      return store && store.meter.protocol === 'DSMR' && store.latest ? keeper?.last : undefined;
    },
  );
}
