import { EventEmitter } from 'node:events';
import type { ConfigStore } from './config/config-store.js';
import type { Logger } from './log.js';
import type { SystemFacts } from './reading/meter-state.js';
import type { ReadingStore } from './reading/store.js';

/** Status line of one service as /api/v1/system shows it (`services` of the system JSON). */
export interface ServiceStatus {
  /** e.g. 'running', 'stopped', 'connected', 'disconnected', 'error', 'disabled', 'IDLE' ... */
  state: string;
  /** Last error message, when there was one. */
  error?: string;
  [key: string]: unknown;
}

/**
 * Registry of service states: each service reports its own state here; /api/v1/system reads them
 * and services that depend on another's state (mDNS announces Modbus while it runs) listen.
 */
export class ServiceStates extends EventEmitter<{ change: [name: string, status: ServiceStatus] }> {
  private readonly states = new Map<string, ServiceStatus>();
  /** Per output: how often one of its event listeners threw (GuardedEmitter). */
  private readonly failures = new Map<string, number>();

  constructor() {
    super();
    this.setMaxListeners(0);
  }

  set(name: string, status: ServiceStatus): void {
    this.states.set(name, status);
    this.emit('change', name, status);
  }

  get(name: string): ServiceStatus | undefined {
    return this.states.get(name);
  }

  countFailure(name: string): void {
    this.failures.set(name, (this.failures.get(name) ?? 0) + 1);
  }

  snapshot(): Record<string, ServiceStatus> {
    const view: Record<string, ServiceStatus> = Object.fromEntries(this.states);
    for (const [name, count] of this.failures) {
      view[name] = { ...(view[name] ?? { state: 'running' }), listener_errors: count };
    }
    return view;
  }
}

/**
 * Everything a component may depend on, passed in explicitly (no global singletons:
 * docs/architecture.md#data-flow). Components take the slice of config they need from `config` and subscribe
 * to its `change` event for live updates.
 */
export interface AppContext {
  config: ConfigStore;
  store: ReadingStore;
  logger: Logger;
  system: SystemFacts;
  services: ServiceStates;
  /** Wall clock, injectable for tests. */
  now: () => number;
  /** Asks the daemon to restart (reboot endpoint, firmware switch): flushes, exits for systemd. */
  requestRestart: (reason: string) => void;
}
