import { systemClock, type Clock } from '../clock.js';

/** What closing needs of a modbus-serial client (TCP or RTU). */
export interface ClosableClient {
  removeAllListeners(): void;
  on(event: 'error', listener: (error: Error) => void): void;
  close(callback: () => void): void;
}

/** How long a close may wait for the client's callback. */
const CLOSE_WAIT_MS = 2000;

/**
 * Closes a modbus-serial client for good: its listeners go (a late error is swallowed) and the
 * promise settles when the client calls back or after CLOSE_WAIT_MS, whichever is first: a TCP
 * socket that is already gone may never call back, and closing must not hang a restart.
 */
export async function closeClient(client: ClosableClient, clock: Clock = systemClock): Promise<void> {
  client.removeAllListeners();
  client.on('error', () => undefined);
  await new Promise<void>((resolve) => {
    const giveUp = clock.setTimeout(resolve, CLOSE_WAIT_MS);
    client.close(() => {
      clock.clearTimeout(giveUp);
      resolve();
    });
  });
}
