/**
 * An output or device service with its own lifecycle (docs/architecture.md#output-contract): started and
 * stopped by the daemon, isolated from the others. A service that fails at runtime logs and recovers on its
 * own; `start` rejects only when the service cannot run at all.
 */
export interface Service {
  readonly name: string;
  /** Required services abort start-up when they fail to start; optional ones are logged and skipped. */
  readonly required: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}
