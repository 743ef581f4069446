import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from './config/atomic-file.js';

const SYSTEM_ID = /^[0-9A-F]{12}$/;
const SYSTEM_ID_FILE = 'system-id';

/**
 * The daemon's system id, which names it in MQTT topics, its client id, Home Assistant unique ids
 * and mDNS, so it must not change under the user: `device.id` when the admin set one; else the id
 * kept in `<state>/system-id`; else a new one, written there. A new state directory gets a random
 * id (locally administered, like a random MAC), so two daemons on one host differ; a state
 * directory of an earlier version (settings present, no id file) keeps the MAC-derived id it
 * has been using.
 */
export function resolveSystemId(configured: string, stateDir: string): string {
  if (configured !== '') return configured;
  const file = join(stateDir, SYSTEM_ID_FILE);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (SYSTEM_ID.test(kept)) return kept;
  } catch {
    // absent or unreadable: make one
  }
  const earlierInstall = existsSync(stateDir) && readdirSync(stateDir).some((name) => name.endsWith('.json'));
  const id = earlierInstall ? readSystemId() : randomSystemId();
  writeFileAtomic(file, `${id}\n`, 0o640);
  return id;
}

/** 12 random hex digits with the locally administered bit set and the multicast bit clear (IEEE 802). */
function randomSystemId(): string {
  const bytes = randomBytes(6);
  bytes[0] = (bytes[0]! & 0xfc) | 0x02;
  return bytes.toString('hex').toUpperCase();
}

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
