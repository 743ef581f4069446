import type { MeterIdentity } from '../../reading/reading.js';
import { MeterDataError } from '../decoder.js';
import { isRequestEcho, parseIdentification, type D0Identification } from '../d0/identification.js';
import { vendorOfFlag } from '../dsmr/vendors.js';
import type { SerialLink } from '../../serial/serial-link.js';
import { systemClock, type Clock } from '../../clock.js';

/** IEC 62056-21 §6.3.1 request message to any meter (no device address). */
const REQUEST = Buffer.from('/?!\r\n', 'latin1');
const LF = 0x0a;
const SLASH = 0x2f;
/** Bytes kept while looking for the identification line (it is at most 5 + 16 characters + CR LF). */
const MAX_PENDING = 256;

export interface SignOnAnswer {
  identification?: D0Identification;
  identity?: MeterIdentity;
  bytes: number;
  /** The port went away during the exchange. */
  gone?: Error;
}

/** The first identification line in `bytes` (echoed requests and noise skipped), and the unread rest. */
export function findIdentification(bytes: Buffer): { identification?: D0Identification; rest: Buffer } {
  let start = 0;
  for (let lf = bytes.indexOf(LF); lf >= 0; lf = bytes.indexOf(LF, start)) {
    const slash = bytes.lastIndexOf(SLASH, lf);
    const line = slash >= start ? bytes.toString('latin1', slash, lf + 1) : undefined;
    start = lf + 1;
    if (!line || isRequestEcho(line)) continue;
    try {
      return { identification: parseIdentification(line), rest: bytes.subarray(start) };
    } catch (error) {
      if (!(error instanceof MeterDataError)) throw error;
    }
  }
  return { rest: bytes.subarray(Math.max(start, bytes.length - MAX_PENDING)) };
}

function identityOf(identification: D0Identification): MeterIdentity {
  const identity: MeterIdentity = {
    prefix: identification.prefix.toUpperCase(),
    model: identification.model,
  };
  const vendor = vendorOfFlag(identification.prefix);
  if (vendor) identity.vendor = vendor;
  return identity;
}

/**
 * Sends the request message on a port already set to 300 Bd 7E1 and waits up to `durationMs`
 * for an identification line (IEC 62056-21 §6.3.2; the meter answers within tr <= 1.5 s). The
 * exchange ends there: without an acknowledgement a mode C meter returns to its idle state.
 */
export function signOn(
  link: SerialLink,
  durationMs: number,
  signal?: AbortSignal,
  clock: Clock = systemClock,
): Promise<SignOnAnswer> {
  return new Promise((resolve) => {
    let pending: Buffer = Buffer.alloc(0);
    let bytes = 0;
    const finish = (answer: Omit<SignOnAnswer, 'bytes'>): void => {
      clock.clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      link.removeAllListeners();
      resolve({ ...answer, bytes });
    };
    const onAbort = (): void => finish({});
    const timer = clock.setTimeout(() => finish({}), durationMs);
    // Aborted while the port was opening: an abort listener added now would never fire.
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort);
    link.on('close', (reason) => finish({ gone: reason ?? new Error('port closed') }));
    link.on('data', (chunk) => {
      bytes += chunk.length;
      const found = findIdentification(Buffer.concat([pending, chunk]));
      pending = Buffer.from(found.rest);
      if (found.identification)
        finish({ identification: found.identification, identity: identityOf(found.identification) });
    });
    link.write(REQUEST).catch((error: Error) => finish({ gone: error }));
  });
}
