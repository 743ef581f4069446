import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** ARPHRD_ETHER (linux/if_arp.h), the `type` of Ethernet and Wi-Fi interfaces in sysfs. */
const ARPHRD_ETHER = '1';

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

async function readTrimmed(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    // `carrier` reads EINVAL while the interface is administratively down
    return undefined;
  }
}

/** Whether `name` is a wired interface on hardware: an Ethernet type with a device, not wireless. */
export async function isWiredInterface(sysClassNet: string, name: string): Promise<boolean> {
  const dir = join(sysClassNet, name);
  if ((await readTrimmed(join(dir, 'type'))) !== ARPHRD_ETHER) return false;
  if (!(await exists(join(dir, 'device')))) return false; // bridges, veth, docker: no device
  return !(await isWireless(dir));
}

/** Whether the sysfs directory of an interface has a `wireless` or `phy80211` entry. */
async function isWireless(dir: string): Promise<boolean> {
  return (await exists(join(dir, 'wireless'))) || (await exists(join(dir, 'phy80211')));
}

/** The interfaces of /sys/class/net, sorted, that pass `test`; none when it cannot be read. */
async function interfacesWhere(
  sysClassNet: string,
  test: (name: string) => Promise<boolean>,
): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(sysClassNet);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const name of names.sort()) if (await test(name)) found.push(name);
  return found;
}

export async function carrierUp(sysClassNet: string, name: string): Promise<boolean> {
  return (await readTrimmed(join(sysClassNet, name, 'carrier'))) === '1';
}

/** Wired interfaces whose link is up (sysfs `carrier` = 1), from /sys/class/net. */
export function wiredLinksUp(sysClassNet: string): Promise<string[]> {
  return interfacesWhere(
    sysClassNet,
    async (name) => (await isWiredInterface(sysClassNet, name)) && (await carrierUp(sysClassNet, name)),
  );
}

/** Wireless interfaces (sysfs `wireless` or `phy80211` entry). */
export function wirelessInterfaces(sysClassNet: string): Promise<string[]> {
  return interfacesWhere(sysClassNet, (name) => isWireless(join(sysClassNet, name)));
}
