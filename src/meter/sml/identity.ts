import type { MeterIdentity } from '../../reading/reading.js';
import { decodeServerId, isFlagCode, isPrintable, vendorOf } from './server-id.js';

/**
 * The meter identity of an SML frame from what the meter sends about itself: the server id (from
 * the messages, else 1-0:0.0.9 or 1-0:96.1.0), the ownership number 1-0:0.0.0 when there is no
 * server id, and the manufacturer text (1-0:96.50.1*1 or 129-129:199.130.3*255).
 */
export interface IdentitySources {
  serverId?: Buffer;
  ownershipNumber?: Buffer;
  manufacturer?: Buffer;
}

/** A meter repeats the same identity in every frame: the last one is reused when unchanged. */
let last: { sources: IdentitySources; identity: Readonly<MeterIdentity> } | undefined;

export function identityOf(sources: IdentitySources): Readonly<MeterIdentity> {
  if (
    last &&
    sameBytes(last.sources.serverId, sources.serverId) &&
    sameBytes(last.sources.ownershipNumber, sources.ownershipNumber) &&
    sameBytes(last.sources.manufacturer, sources.manufacturer)
  ) {
    return last.identity;
  }
  const identity = Object.freeze(decodeIdentity(sources));
  last = { sources: copySources(sources), identity };
  return identity;
}

function decodeIdentity({ serverId, ownershipNumber, manufacturer }: IdentitySources): MeterIdentity {
  const identity: MeterIdentity = {};
  if (serverId) {
    const decoded = decodeServerId(serverId);
    identity.id = decoded.id;
    if (decoded.prefix) identity.prefix = decoded.prefix;
  } else if (ownershipNumber && isPrintable(ownershipNumber)) {
    identity.id = ownershipNumber.toString('latin1');
  }
  const text = manufacturer && isPrintable(manufacturer) ? manufacturer.toString('latin1').trim() : '';
  if (identity.prefix === undefined && isFlagCode(text)) identity.prefix = text;
  const vendor = vendorOf(identity.prefix) ?? (isFlagCode(text) ? undefined : text);
  if (vendor) identity.vendor = vendor;
  return identity;
}

/** The sources are views into a frame; the memo keeps copies of its own. */
function copySources(sources: IdentitySources): IdentitySources {
  const copy = (bytes: Buffer | undefined): Buffer | undefined => (bytes ? Buffer.from(bytes) : undefined);
  return {
    serverId: copy(sources.serverId),
    ownershipNumber: copy(sources.ownershipNumber),
    manufacturer: copy(sources.manufacturer),
  };
}

function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
