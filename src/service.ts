/**
 * An output or device service with its own lifecycle (docs/architecture.md#output-contract): started and
 * stopped by the daemon, isolated from the others. A service that fails at runtime logs and recovers on its
 * own; `start` rejects only when the service cannot run at all.
 */
export interface Service {
  readonly name: string;
  /**
   * Required services (the meter input) abort start-up when they fail to start; every other one
   * leaves it out (optional): its failure is logged and it is skipped.
   */
  readonly required?: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}
