import { SerialPort } from 'serialport';
import { settleWithin } from '../../helpers/wait.js';

async function openPort(path: string): Promise<SerialPort | undefined> {
  const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
  port.on('error', () => undefined);
  const opened = await new Promise<boolean>((resolve) => port.open((error) => resolve(!error)));
  return opened ? port : undefined;
}

/** Closes `port` if it is open; a port that does not close within 2 s fails the test, not hangs it. */
async function closeWithin(port: SerialPort | undefined): Promise<void> {
  if (!port?.isOpen) return;
  await settleWithin(
    'the fake meter port to close',
    new Promise<void>((resolve) => port.close(() => resolve())),
    2000,
  );
}

/**
 * The meter side of a pty pair: writes `frames` one after another every `intervalMs` (a pushing
 * meter), or, with `answer`, replies to what the gateway sends (an IEC 62056-21 meter in request
 * mode). When the pty vanishes it keeps trying to reopen it, so a restarted socat is picked up.
 */
export class FakeMeter {
  private port: SerialPort | undefined;
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  private running = false;
  /** Bytes the gateway sent that the answer function has not consumed yet. */
  received: Buffer = Buffer.alloc(0);
  /** Everything the gateway sent to the meter (latin1). */
  heard = '';

  constructor(
    private readonly path: string,
    private readonly frames: readonly Buffer[],
    private readonly intervalMs: number,
    private readonly answer?: (received: Buffer, write: (bytes: Buffer) => void) => Buffer,
  ) {}

  start(): void {
    this.running = true;
    this.tick();
  }

  /** Whether the meter end is open (a gateway that signs on now is heard). */
  get isOpen(): boolean {
    return this.port?.isOpen ?? false;
  }

  /** Stops sending (the line goes silent) and closes the meter end. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    const port = this.port;
    this.port = undefined;
    await closeWithin(port);
  }

  private tick(): void {
    if (!this.running) return;
    void this.step().finally(() => {
      if (this.running) this.timer = setTimeout(() => this.tick(), this.intervalMs);
    });
  }

  private async step(): Promise<void> {
    if (!this.port?.isOpen) {
      const opened = await openPort(this.path);
      // stop() while the port was opening: close it here, nothing else will.
      if (!this.running) return closeWithin(opened);
      this.port = opened;
      if (!this.port) return;
      const port = this.port;
      port.on('data', (chunk: Buffer) => {
        this.heard += chunk.toString('latin1');
        if (!this.answer) return;
        this.received = this.answer(Buffer.concat([this.received, chunk]), (bytes) => port.write(bytes));
      });
    }
    if (this.answer || this.frames.length === 0) return;
    this.port.write(this.frames[this.next % this.frames.length]!);
    this.next += 1;
  }
}
