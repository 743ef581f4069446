import { createRequire } from 'node:module';
import type * as NodeCron from 'node-cron';

/**
 * node-cron, loaded on first use (docs/architecture.md#configuration): the one instance that checks
 * the cron expressions of the configuration (a check runs synchronously inside a config write) and
 * runs every schedule. Loaded through require, so the check and the scheduler share one copy.
 */
let loaded: typeof NodeCron | undefined;

export function nodeCron(): typeof NodeCron {
  loaded ??= createRequire(import.meta.url)('node-cron') as typeof NodeCron;
  return loaded;
}

/** Why node-cron refuses an expression, or undefined when it takes it. */
export function cronProblem(expression: string): string | undefined {
  return nodeCron().validate(expression) ? undefined : 'is not a cron expression node-cron accepts';
}
