import type { Logger } from '../../log.js';
import type { NmcliRunner } from './nmcli.js';

/** What an activation needs of its backend's options (read per call, as the backend does). */
export interface ActivationOptions {
  run: NmcliRunner;
  logger: Logger;
  onState: (state: string, error?: string) => void;
}

/**
 * The background `nmcli connection up` runs of one connection (Wi-Fi station or Ethernet): the
 * state goes to 'connecting', then 'connected' or the connection's failure state with nmcli's
 * message. `settle` waits for the runs in progress (tests, shutdown).
 */
export class ProfileActivations {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly options: ActivationOptions) {}

  /** Activates `profile` (up to 30 s, `--wait 30`); `connected` runs before the state is reported. */
  start(profile: string, failedState: string, connected: () => void): void {
    this.options.onState('connecting');
    const activation = this.options.run(['--wait', '30', 'connection', 'up', 'id', profile]).then(
      () => {
        connected();
        this.options.onState('connected');
      },
      (error: Error) => {
        this.options.logger.warn(`activating ${profile} failed: ${error.message}`);
        this.options.onState(failedState, error.message);
      },
    );
    this.running.add(activation);
    void activation.finally(() => this.running.delete(activation));
  }

  async settle(): Promise<void> {
    await Promise.all([...this.running]);
  }
}
