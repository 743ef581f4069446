import { contract } from '../contract-ref.js';
import type { AppContext } from '../../context.js';
import type { ActionsDefinition } from '../../actions/definition.js';
import { splitSecretHeaders, type HeaderSecrets } from '../../actions/secret-headers.js';
import { getPath, LEAVES, setPath, stateFileOf } from '../../config/paths.js';
import type { ValidationIssue } from '../../config/config-store.js';
import { ERROR_REF } from '../api-schemas.js';
import { sendJson } from '../respond.js';
import { throwUnlessApplied, validationError } from '../section-writes.js';
import type { Router } from '../router.js';
import type { SettingsBackup } from '../../contracts/status.js';
import { BACKUP_FORMAT } from '../../contracts/values.js';

export const BACKUP_PATH = '/api/v1/backup';

/** A restore body holds every setting, certificates and layouts included: far above a settings write. */
export const BACKUP_MAX_BYTES = 256 * 1024;

const FORMAT = BACKUP_FORMAT;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every setting the API writes (the state files' leaves); secrets only when asked for. */
export function settingsBackup(ctx: AppContext, withSecrets: boolean): SettingsBackup {
  const settings: Record<string, unknown> = {};
  for (const leaf of LEAVES.values()) {
    if (stateFileOf(leaf.path) === undefined || (leaf.secret && !withSecrets)) continue;
    setPath(settings, leaf.path, structuredClone(getPath(ctx.config.config, leaf.path)));
  }
  // A definition's secret header values (one the admin's file wrote inline included) go with the secrets.
  const definition = getPath(settings, 'actions.definition') as ActionsDefinition | null | undefined;
  if (definition && !withSecrets)
    setPath(settings, 'actions.definition', splitSecretHeaders(definition, {}).definition);
  return {
    format: FORMAT,
    version: 1,
    created: new Date(ctx.now()).toISOString(),
    secrets_included: withSecrets,
    settings,
  };
}

/**
 * The leaf writes of a backup's `settings`: each leaf the file holds. A key that is no setting, or
 * a section that is not an object, is an issue naming its dotted path.
 */
function restoreWrites(settings: Record<string, unknown>): {
  changes: Map<string, unknown>;
  issues: ValidationIssue[];
} {
  const changes = new Map<string, unknown>();
  const issues: ValidationIssue[] = [];
  const walk = (node: Record<string, unknown>, prefix: string): void => {
    for (const [key, value] of Object.entries(node)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (LEAVES.has(path)) {
        if (stateFileOf(path) === undefined)
          issues.push({ field: path, message: 'not writable through the API', value });
        else changes.set(path, value);
      } else if ([...LEAVES.keys()].some((leaf) => leaf.startsWith(`${path}.`))) {
        if (isObject(value)) walk(value, path);
        else issues.push({ field: path, message: 'must be an object (a settings section)', value });
      } else {
        issues.push({ field: path, message: 'unknown setting' });
      }
    }
  };
  walk(settings, '');
  return { changes, issues };
}

/**
 * A restored definition keeps no secret header value in `actions.json`: values written inline go to
 * `actions.header_secrets`, and a header the definition names without a value takes the file's
 * value when the file holds secrets, else the stored one (a backup without secrets keeps them).
 */
function separateHeaderSecrets(ctx: AppContext, changes: Map<string, unknown>): void {
  const definition = changes.get('actions.definition');
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) return;
  // A definition that breaks its format is left as it is, for the check to name its fields.
  if (ctx.config.schemaIssues(new Map([['actions.definition', definition]])).length > 0) return;
  const given = changes.get('actions.header_secrets');
  const known =
    given !== undefined && ctx.config.schemaIssues(new Map([['actions.header_secrets', given]])).length === 0;
  const split = splitSecretHeaders(
    definition as ActionsDefinition,
    known ? (given as HeaderSecrets) : ctx.config.config.actions.header_secrets,
  );
  changes.set('actions.definition', split.definition);
  if (given === undefined || known) changes.set('actions.header_secrets', split.secrets);
}

/**
 * GET /api/v1/backup[?secrets=true]: the settings as a file; POST /api/v1/backup: restores such a
 * file. A restore writes every setting the file holds through the one validation path and the
 * state files' atomic write: a bad file changes nothing (400 naming the fields). Secrets the file
 * does not hold stay as they are.
 */
export function registerBackupRoutes(router: Router, ctx: AppContext): void {
  router.add(
    'GET',
    BACKUP_PATH,
    (request, response) => {
      const secrets = request.query.get('secrets') ?? 'false';
      if (secrets !== 'true' && secrets !== 'false')
        throw validationError([{ field: 'secrets', message: 'true or false', value: secrets }]);
      const backup = settingsBackup(ctx, secrets === 'true');
      const stamp = backup.created.slice(0, 10);
      const name = `${ctx.config.config.system.host_name || 'meter-gateway'}-settings-${stamp}${secrets === 'true' ? '-with-secrets' : ''}.json`;
      response.setHeader('Content-Disposition', `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`);
      sendJson(response, 200, backup);
    },
    {
      doc: {
        summary: 'Download the settings (passwords and keys only with secrets=true)',
        query: { secrets: { type: 'boolean', description: 'include passwords and keys; default false' } },
        responses: { 200: { description: 'settings backup', schema: contract('SettingsBackupSchema') } },
      },
    },
  );
  router.route(
    {
      method: 'POST',
      path: BACKUP_PATH,
      maxBodyBytes: BACKUP_MAX_BYTES,
      summary: 'Restore the settings from a backup file (all or nothing)',
      // The envelope (format, version, a settings object) is the contract's; the settings the config's.
      body: contract('SettingsRestoreSchema'),
      response: {
        200: { description: 'settings restored', schema: contract('RestoreAnswerSchema') },
        400: { description: 'not a backup, or invalid settings (validation_failed)', schema: ERROR_REF },
      },
    },
    async ({ body }) => {
      const { changes, issues } = restoreWrites(body.settings);
      if (issues.length > 0) throw validationError(issues);
      // The add-on's options win over a backup too (docs/architecture.md#add-on-options).
      for (const path of ctx.config.locked) changes.delete(path);
      separateHeaderSecrets(ctx, changes);
      const result = ctx.config.apply(changes);
      await throwUnlessApplied(ctx, result);
      if (result.ok) ctx.logger.info(`settings restored from a backup: ${result.changed.length} changed`);
      return { status: 200, body: { restored: changes.size, changed: result.ok ? result.changed : [] } };
    },
  );
}
