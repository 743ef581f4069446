import { rmSync } from 'node:fs';
import { createAppContext, type AppContext } from '../../../src/context.js';
import type { RetryTimer } from '../../../src/backoff.js';
import type { Clock } from '../../../src/clock.js';
import { MeterInput } from '../../../src/meter/meter-input.js';
import { runOutput } from '../../../src/output-runner.js';
import type { Service } from '../../../src/service.js';
import { interfaceOfSource } from '../../../src/meter/source.js';
import type { MeterStatus } from '../../../src/reading/meter-state.js';
import type { ReadingStore } from '../../../src/reading/store.js';
import { linesLogger } from '../../helpers/log-lines.js';
import { registerConfigFormats } from '../../../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();
import { waitFor } from '../../helpers/wait.js';

export interface Harness {
  dir: string;
  /** The meter input as the daemon runs it: settings changes reach it. */
  input: Service;
  store: ReadingStore;
  context: AppContext;
  /** Log lines at warn and above (reconnect messages). */
  warnings: string[];
  close(): Promise<void>;
}

export { tempDir } from '../../helpers/temp-dir.js';

/** A meter input on `source` with a real config store, reading store and logger, as the daemon wires it. */
export function meterInput(
  dir: string,
  source: string,
  env: Record<string, string> = {},
  retryTimer?: RetryTimer,
  clock?: Clock,
): Harness {
  const warnings: string[] = [];
  const logger = linesLogger(warnings, 'warn', (entry) => entry.message);
  const context = createAppContext({
    env: { METER_GATEWAY_METER_SOURCE: source, METER_GATEWAY_METER_TIMEOUT: '2', ...env },
    stateDir: dir,
    meterInterface: interfaceOfSource(source),
    logger,
    system: { id: '0123456789AB', model: 'test', firmware: '0', bootId: 'boot' },
    ...(clock ? { clock } : {}),
  });
  const store = context.store;
  const input = runOutput(context, new MeterInput(context, logger, retryTimer));
  return {
    dir,
    input,
    store,
    context,
    warnings,
    async close() {
      await input.stop();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until the meter status is one of `statuses`; fails after a generous deadline. */
export async function waitForStatus(
  store: ReadingStore,
  statuses: readonly MeterStatus[],
  deadlineMs = 20_000,
): Promise<void> {
  await waitFor(
    `meter status ${statuses.join(' or ')}`,
    () => store.meter.status,
    (status) => statuses.includes(status),
    { deadlineMs, intervalMs: 50 },
  );
}
