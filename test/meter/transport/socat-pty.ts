import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

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
    for (let waited = 0; !(existsSync(this.hostPath) && existsSync(this.meterPath)); waited += 20) {
      if (waited > 5000 || socat.exitCode !== null) throw new Error('socat did not create the pty pair');
      await sleep(20);
    }
    // socat creates the links before its transfer loop runs; give it that moment.
    await sleep(100);
  }

  /** Kills socat (both pty ends vanish) and waits until it has exited. */
  async stop(): Promise<void> {
    const socat = this.socat;
    this.socat = undefined;
    if (socat && socat.exitCode === null) socat.kill();
    await this.exited;
  }
}
