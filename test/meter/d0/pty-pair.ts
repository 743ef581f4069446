import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SerialPort } from 'serialport';

/** Two pseudo-terminals joined by socat: what one side writes, the other reads. */
export interface PtyPair {
  hostPath: string;
  meterPath: string;
  close(): Promise<void>;
}

export async function openPtyPair(): Promise<PtyPair> {
  const dir = mkdtempSync(join(tmpdir(), 'd0-pty-'));
  const hostPath = join(dir, 'host');
  const meterPath = join(dir, 'meter');
  const socat: ChildProcess = spawn(
    'socat',
    ['-d', '-d', `pty,raw,echo=0,link=${hostPath}`, `pty,raw,echo=0,link=${meterPath}`],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => socat.once('exit', () => resolve()));
  for (let waited = 0; !(existsSync(hostPath) && existsSync(meterPath)); waited += 20) {
    if (waited > 5000 || socat.exitCode !== null) throw new Error('socat did not create the pty pair');
    await sleep(20);
  }
  return {
    hostPath,
    meterPath,
    async close() {
      if (socat.exitCode === null) socat.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Opens a pty end as IEC 62056-21 wants the line: 300 Bd, 7 data bits, even parity, 1 stop bit. */
export async function openSerial(path: string): Promise<SerialPort> {
  const port = new SerialPort({ path, baudRate: 300, dataBits: 7, parity: 'even', autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(error) : resolve())));
  return port;
}

export function closeSerial(port: SerialPort): Promise<void> {
  if (!port.isOpen) return Promise.resolve();
  return new Promise((resolve) => port.close(() => resolve()));
}

/**
 * Waits until bytes written on `from` arrive at `to`: right after opening, socat may not yet pass
 * data on. Sends NUL bytes, which both the session and the fake meter treat as line noise.
 */
export async function awaitPassage(from: SerialPort, to: SerialPort): Promise<void> {
  let arrived = false;
  const onData = (): void => {
    arrived = true;
  };
  to.on('data', onData);
  for (let tries = 0; !arrived; tries++) {
    if (tries > 100) throw new Error('no data passes through the pty pair');
    from.write(Buffer.from([0]));
    await sleep(30);
  }
  to.off('data', onData);
}
