import { FormatError, registerFormats, type ConfigFormat } from '../config/formats.js';
import type { ActionsDefinition } from './definition.js';
import { definitionIssues } from './definition-validate.js';

declare module '../config/formats.js' {
  interface FormatTypes {
    /** The actions definition as the API stored it (checked by definitionIssues). */
    'actions-definition': ActionsDefinition;
  }
}

/**
 * actions.definition: the same checks as a POST to /api/v1/actions, so a definition from the
 * admin's file or the environment is held to the same rules.
 */
const ACTIONS_DEFINITION: ConfigFormat = {
  name: 'actions-definition',
  validate(value) {
    const issues = definitionIssues(value);
    if (issues.length > 0) {
      const text = issues.map((issue) => `${issue.field || 'definition'}: ${issue.message}`).join('; ');
      throw new FormatError('invalid-actions', `must be null or a valid actions definition: ${text}`, {
        parts: issues,
      });
    }
  },
  describe: () => 'actions definition {const, actions} or null',
  fromEnv(text) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  },
};

/** Registers the actions format of the config schema; the daemon calls it before the config loads. */
export function registerActionFormats(): void {
  registerFormats([ACTIONS_DEFINITION]);
}
