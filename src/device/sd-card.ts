import { constants } from 'node:fs';
import { access, statfs } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AppConfig } from '../config/types.js';
import type { SdCardView } from '../contracts/system.js';

/**
 * The SD card folder (sd_log.directory, default `<state>/sd`): the CSV logs of services.sd and the
 * log file of services.log live here, and /sdcard serves it (docs/architecture.md#sd-card). It is
 * never the state directory itself, so the settings and secrets are outside it.
 */
export function sdCardRoot(config: AppConfig): string {
  return resolve(config.sd_log.directory || join(config.paths.state, 'sd'));
}

/**
 * The `sd_card` object of /api/v1/system: `installed` the folder exists and is writable, `type` the
 * file system holding it (statfs f_type, '' when not installed), `size` that file system's bytes
 * (statfs f_blocks x f_bsize), `speed` the card's bus speed, which the daemon cannot know on a Pi
 * (the kernel hides it): 0.
 */
export type SdCardInfo = SdCardView;

/** statfs f_type magic numbers (linux/magic.h) of the file systems an SD card or a test runs on. */
const FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0xef53, 'ext4'],
  [0x4d44, 'vfat'],
  [0x2011bab0, 'exfat'],
  [0x5346544e, 'ntfs'],
  [0x9123683e, 'btrfs'],
  [0x58465342, 'xfs'],
  [0xf2f52010, 'f2fs'],
  [0x01021994, 'tmpfs'],
  [0x794c7630, 'overlay'],
]);

export async function sdCardInfo(root: string): Promise<SdCardInfo> {
  try {
    await access(root, constants.W_OK);
    const fs = await statfs(root);
    return {
      installed: true,
      type: FILE_SYSTEMS.get(fs.type) ?? `0x${fs.type.toString(16)}`,
      size: fs.blocks * fs.bsize,
      speed: 0,
    };
  } catch {
    return { installed: false, type: '', size: 0, speed: 0 };
  }
}
