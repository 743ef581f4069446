/**
 * What a meter input reports and feeds (docs/architecture.md#output-contract,
 * docs/architecture.md#several-meters): the store and status line it is bound to, and the facts of
 * its status line. Shared by the input (src/meter/meter-input.ts), its frame path
 * (src/meter/meter-frames.ts) and the further meters' inputs (src/meter/meters-input.ts).
 */
import type { ReadingStore } from '../reading/store.js';
import type { OutputStatus, StatusPort } from '../output.js';

/**
 * What one meter input reads for: the store it feeds and its name (the key of its status line).
 * The primary meter's are the context store and `meter`; a further meter's its own store and
 * `meter:<id>`, reported inside the `meters` line (docs/architecture.md#several-meters).
 */
export interface MeterBinding {
  store: ReadingStore;
  service: string;
}

/** The status facts of a meter input (docs/architecture.md#output-contract). */
export type MeterFacts = {
  /** `open`: the link is open; `detecting`: the protocol probe runs; `closed`: it is reopened. */
  link?: 'open' | 'closed' | 'detecting';
  /** The open link in words, and the words' message key (docs/architecture.md#server-message-keys). */
  source?: string;
  source_key?: string;
  source_args?: Record<string, string | number>;
  /** The latest frame rejection of the open link. */
  last_error?: string;
  /** When the input reopens a link it lost (it retries that by itself, shown as `retrying`). */
  retry_in_ms?: number;
};
export type MeterStatus = OutputStatus<MeterFacts>;

/** The status port of an input nobody reports (the meter test's throwaway input). */
export const IGNORED_STATUS: StatusPort<MeterFacts> = { facts: () => undefined, trouble: () => undefined };
