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
  return !(await exists(join(dir, 'wireless'))) && !(await exists(join(dir, 'phy80211')));
}

export async function carrierUp(sysClassNet: string, name: string): Promise<boolean> {
  return (await readTrimmed(join(sysClassNet, name, 'carrier'))) === '1';
}

/** Wired interfaces whose link is up (sysfs `carrier` = 1), from /sys/class/net. */
export async function wiredLinksUp(sysClassNet: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(sysClassNet);
  } catch {
    return [];
  }
  const up: string[] = [];
  for (const name of names.sort()) {
    if ((await isWiredInterface(sysClassNet, name)) && (await carrierUp(sysClassNet, name))) up.push(name);
  }
  return up;
}

/** Wireless interfaces (sysfs `wireless` or `phy80211` entry). */
export async function wirelessInterfaces(sysClassNet: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(sysClassNet);
  } catch {
    return [];
  }
  const wireless: string[] = [];
  for (const name of names.sort()) {
    const dir = join(sysClassNet, name);
    if ((await exists(join(dir, 'wireless'))) || (await exists(join(dir, 'phy80211')))) wireless.push(name);
  }
  return wireless;
}
