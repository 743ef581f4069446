import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { waitFor } from '../../helpers/wait.js';

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
  await waitFor('socat to create the pty pair', () => {
    if (socat.exitCode !== null)
      throw new Error(`socat exited ${socat.exitCode} before creating the pty pair`);
    return existsSync(hostPath) && existsSync(meterPath);
  });
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
  const sendNul = (): boolean => {
    if (!arrived) from.write(Buffer.from([0]));
    return arrived;
  };
  await waitFor('data to pass through the pty pair', sendNul, Boolean, { intervalMs: 30 });
  to.off('data', onData);
}
