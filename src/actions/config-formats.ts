import {
  FormatError,
  jsonValueFormat,
  registerFormats,
  rejectIssues,
  type IssueRule,
} from '../config/formats.js';
import type { ActionsDefinition } from './definition.js';
import { definitionIssues } from './definition-validate.js';
import type { HeaderSecrets } from './secret-headers.js';

declare module '../config/formats.js' {
  interface FormatTypes {
    /** The actions definition as the API stored it (checked by definitionIssues). */
    'actions-definition': ActionsDefinition;
    /** The secret header values of the actions (secret-headers.ts). */
    'actions-header-secrets': HeaderSecrets;
  }
}

/**
 * actions.definition: the same checks as a POST to /api/v1/actions, so a definition from the
 * admin's file or the environment is held to the same rules.
 */
const DEFINITION_RULE: IssueRule = {
  reason: 'invalid-actions',
  must: 'must be null or a valid actions definition',
  whole: 'definition',
  withParts: true,
};

const ACTIONS_DEFINITION = jsonValueFormat('actions-definition', {
  check: (value) => rejectIssues(definitionIssues(value), DEFINITION_RULE),
  describe: 'actions definition {const, actions} or null',
});

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where a stored secret-headers value breaks its shape (never echoing a value), or undefined. */
function headerSecretsProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'must be an object {action id: {request index: {header: value}}}';
  for (const [id, requests] of Object.entries(value)) {
    if (!isObject(requests)) return `${id}: must be an object by request index`;
    for (const [index, headers] of Object.entries(requests)) {
      if (!/^\d{1,2}$/.test(index) || !isObject(headers))
        return `${id}.${index}: must be headers by request index`;
      for (const [name, text] of Object.entries(headers)) {
        // RFC 9110 §5.1 (a field name is a token), §5.5 (no CR, LF or NUL in a value).
        if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
          return `${id}.${index}: a header name must be a token`;
        if (typeof text !== 'string' || /[\r\n\0]/.test(text) || text.length > 4096)
          return `${id}.${index}.${name}: must be a string of at most 4096 characters without CR, LF or NUL`;
      }
    }
  }
  return undefined;
}

const HEADER_SECRETS = jsonValueFormat('actions-header-secrets', {
  check(value) {
    const problem = headerSecretsProblem(value);
    if (problem !== undefined) throw new FormatError('invalid-header-secrets', problem);
  },
  describe: 'secret header values {action id: {request index: {header: value}}}',
});

/** Registers the actions format of the config schema; the daemon calls it before the config loads. */
export function registerActionFormats(): void {
  registerFormats([ACTIONS_DEFINITION, HEADER_SECRETS]);
}
