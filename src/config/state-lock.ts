import { linkSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The state folder belongs to one daemon at a time (docs/architecture.md#state-folder-lock): the
 * daemon takes `<state>/daemon.lock`, a file holding its process id, before it opens anything else
 * there (state files, history, SD card logs), and removes it when it exits. A second daemon on the
 * same folder stops at once, naming the process that holds it. A lock whose process is gone (the
 * holder was killed, or the machine rebooted) is taken over.
 */
export const LOCK_FILE = 'daemon.lock';

export class StateLockError extends Error {
  constructor(
    message: string,
    readonly holder: number,
  ) {
    super(message);
    this.name = 'StateLockError';
  }
}

export interface StateLockProbe {
  /** True when a process with this id runs (kill(pid, 0): EPERM still means it runs). */
  alive(pid: number): boolean;
  /** Its command line, where the system tells it (/proc on Linux); undefined elsewhere. */
  commandOf(pid: number): string | undefined;
}

export const systemProbe: StateLockProbe = {
  alive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
  commandOf(pid) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    } catch {
      return undefined;
    }
  },
};

export interface StateLock {
  path: string;
  /** Removes the lock file when it is still this process's. */
  release(): void;
}

function holderOf(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A process that holds the lock: alive, not this process, and (where the command line can be read)
 * a Node process, so an id reused after a reboot by another program does not keep the folder locked.
 */
function holds(pid: number, probe: StateLockProbe): boolean {
  if (pid === process.pid || !probe.alive(pid)) return false;
  const command = probe.commandOf(pid);
  return command === undefined || /node/i.test(command);
}

/**
 * Takes the lock of `stateDir` (created when missing) for this process or throws StateLockError.
 * The lock file is written under a temporary name and linked to its place: link(2) fails when the
 * name exists, so of two daemons starting together exactly one gets it, with its id already inside.
 */
export function acquireStateLock(stateDir: string, probe: StateLockProbe = systemProbe): StateLock {
  mkdirSync(stateDir, { recursive: true });
  const path = join(stateDir, LOCK_FILE);
  const temp = join(stateDir, `${LOCK_FILE}.${process.pid}.new`);
  writeFileSync(temp, `${process.pid}\n`);
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        linkSync(temp, path);
        return {
          path,
          release() {
            if (holderOf(path) === process.pid) rmSync(path, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = holderOf(path);
      if (holder !== undefined && holds(holder, probe)) {
        const command = probe.commandOf(holder);
        throw new StateLockError(
          `the state folder ${stateDir} is in use by another meter-gateway, process ${holder}${command ? ` (${command})` : ''}; stop that one first, or give this one another folder with --state-dir DIR (lock file ${path})`,
          holder,
        );
      }
      // A lock left by a process that is gone (or unreadable): taken over.
      rmSync(path, { force: true });
    }
    throw new Error(`cannot take the lock ${path}: it keeps reappearing`);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // already gone
    }
  }
}
