/** One link as the Wi-Fi backend last reported it: its state word and the reason of a failure. */
export interface LinkReport {
  link: string;
  error?: string;
}

/**
 * The link states the Wi-Fi backend reports (docs/architecture.md#wi-fi-and-ethernet): the station
 * (`connecting`, `connected`, `disabled`, `configured` ...) and the wired connection. The network
 * output is their one reader and writes them as facts of its status line; the backend only reports.
 */
export class LinkStates {
  wifi: LinkReport | undefined;
  ethernet: LinkReport | undefined;
  private listener: (() => void) | undefined;

  report(kind: 'wifi' | 'ethernet', state: string, error?: string): void {
    this[kind] = error === undefined ? { link: state } : { link: state, error };
    this.listener?.();
  }

  /** Calls `listener` after each report; `undefined` stops that. */
  follow(listener: (() => void) | undefined): void {
    this.listener = listener;
  }
}

const statesOf = new WeakMap<object, LinkStates>();

/** The link states a backend made by createWifiBackend reports to. */
export function linkStatesOf(backend: object): LinkStates | undefined {
  return statesOf.get(backend);
}

/** Ties `states` to `backend` (createWifiBackend). */
export function attachLinkStates(backend: object, states: LinkStates): void {
  statesOf.set(backend, states);
}
