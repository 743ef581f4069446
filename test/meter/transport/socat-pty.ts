import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { settleWithin, waitFor } from '../../helpers/wait.js';

/**
 * A socat pseudo-terminal pair that can be killed and started again under the same link names,
 * like a USB serial adapter that is unplugged and plugged back in. `hostPath` is the end the
 * gateway opens, `meterPath` the end the test writes meter bytes into.
 */
export class SocatPty {
  readonly hostPath: string;
  readonly meterPath: string;
  private socat: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(dir: string) {
    this.hostPath = join(dir, 'host');
    this.meterPath = join(dir, 'meter');
  }

  async start(): Promise<void> {
    const socat = spawn(
      'socat',
      ['-d', '-d', `pty,raw,echo=0,link=${this.hostPath}`, `pty,raw,echo=0,link=${this.meterPath}`],
      { stdio: 'ignore' },
    );
    this.socat = socat;
    this.exited = new Promise((resolve) => socat.once('exit', () => resolve()));
    await waitFor('socat to create the pty pair', () => {
      if (socat.exitCode !== null)
        throw new Error(`socat exited ${socat.exitCode} before creating the pty pair`);
      return existsSync(this.hostPath) && existsSync(this.meterPath);
    });
    // socat creates the links before its transfer loop runs and shows no sign when that starts;
    // a settling pause, not a wait for a state.
    await sleep(100);
  }

  /**
   * Kills socat (both pty ends vanish) and waits until it has exited: SIGTERM, SIGKILL when it
   * has not gone after 2 s, and an error rather than a hang if even that does not end it.
   */
  async stop(): Promise<void> {
    const socat = this.socat;
    this.socat = undefined;
    if (!socat || socat.exitCode !== null || socat.signalCode !== null) return;
    socat.kill();
    try {
      await settleWithin('socat to exit on SIGTERM', this.exited, 2000);
    } catch {
      socat.kill('SIGKILL');
      await settleWithin('socat to exit on SIGKILL', this.exited, 2000);
    }
  }
}
