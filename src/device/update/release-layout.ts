import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, readlink, rename, symlink, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Install layout shared by the updater and scripts/launcher.ts:
 *
 *   <root>/releases/<version>-<first 12 hex digits of the payload SHA-256>/   one unpacked bundle each
 *   <root>/current  -> releases/<id>    what the launcher starts
 *   <root>/previous -> releases/<id>    what it falls back to when `current` never reports READY
 *   <root>/confirmed                    id of the last release that reported READY (launcher)
 *   <root>/failed                       id of the last release rolled back from (launcher)
 *
 * Links are relative, so the root can move. A link is switched by creating a temporary link and
 * renaming it over the old one: rename(2) replaces the name atomically, so a reader (the launcher
 * after a power cut) sees the old or the new target, never none.
 */
export const RELEASES_DIR = 'releases';
export const CURRENT_LINK = 'current';
export const PREVIOUS_LINK = 'previous';

export async function switchLink(root: string, name: string, target: string): Promise<void> {
  const link = join(root, name);
  const temp = `${link}.tmp-${randomBytes(4).toString('hex')}`;
  await symlink(target, temp);
  try {
    await rename(temp, link);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  const dir = await open(root, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** Target of a link (relative, as written), or undefined when the link does not exist. */
export async function linkTarget(root: string, name: string): Promise<string | undefined> {
  try {
    return await readlink(join(root, name));
  } catch {
    return undefined;
  }
}

/**
 * The install root this code runs from: the app runs as <root>/releases/<id>/dist/src/..., and the
 * root has a `current` link. Undefined outside that layout (development checkout, npm start).
 */
export function detectInstallRoot(moduleUrl: string = import.meta.url): string | undefined {
  let dir = dirname(fileURLToPath(moduleUrl));
  while (dirname(dir) !== dir) {
    const parent = dirname(dir);
    if (basename(parent) === RELEASES_DIR) {
      const root = dirname(parent);
      return existsSync(join(root, CURRENT_LINK)) ? root : undefined;
    }
    dir = parent;
  }
  return undefined;
}
