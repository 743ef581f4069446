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

export function identityOf({ serverId, ownershipNumber, manufacturer }: IdentitySources): MeterIdentity {
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
