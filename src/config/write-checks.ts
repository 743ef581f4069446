/**
 * Checks of the configuration store beyond the schema and the rules between keys: the paths the
 * Home Assistant add-on locks (docs/architecture.md#add-on-options) and the password that
 * protection needs.
 */
import { ConfigError } from './config-error.js';
import { getPath, stateFileOf } from './paths.js';
import type { ValidationIssue } from './validation.js';

/** The add-on's paths (addon.locked) when running as an add-on; a path that is no API setting fails the load. */
export function lockedPathsOf(tree: Record<string, unknown>): Set<string> {
  if (getPath(tree, 'addon.enable') !== true) return new Set();
  const paths = String(getPath(tree, 'addon.locked') ?? '')
    .split(',')
    .filter((path) => path !== '');
  const wrong = paths.filter((path) => stateFileOf(path) === undefined);
  if (wrong.length > 0)
    throw new ConfigError(
      'addon.locked',
      wrong.map((path) => ({ field: 'addon.locked', message: 'not a setting the API writes', value: path })),
    );
  return new Set(paths);
}

/**
 * Protection on with no password would leave nothing to authenticate against: a write that would
 * end there is refused (the request is rejected, not the lock-out applied).
 */
export function protectionIssues(
  candidate: Record<string, unknown>,
  changes: ReadonlyMap<string, unknown>,
): ValidationIssue[] {
  if (!changes.has('system.protection') && !changes.has('system.password')) return [];
  if (getPath(candidate, 'system.protection') !== true || getPath(candidate, 'system.password') !== '')
    return [];
  return [
    {
      field: 'system.password',
      message: 'a password is required while system.protection is on (set both in one request)',
    },
  ];
}
