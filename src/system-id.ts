import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';

/**
 * The gateway's system id: 12 upper-case hex digits (the real device shows its Wi-Fi MAC, e.g.
 * ECC9FF5C7F14). Taken from the first non-internal MAC address, else derived from
 * /etc/machine-id, so it is stable across restarts.
 */
export function readSystemId(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (!address.internal && address.mac && address.mac !== '00:00:00:00:00:00') {
        return address.mac.replaceAll(':', '').toUpperCase();
      }
    }
  }
  try {
    const machineId = readFileSync('/etc/machine-id', 'utf8').trim();
    return createHash('sha256').update(machineId).digest('hex').slice(0, 12).toUpperCase();
  } catch {
    return createHash('sha256').update('meter-gateway').digest('hex').slice(0, 12).toUpperCase();
  }
}
