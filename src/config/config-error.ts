import type { ValidationIssue } from './validation-issue.js';

/** Start-up configuration error: exit code 1 with a message naming key, value and rule. */
export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly issues: readonly ValidationIssue[],
  ) {
    super(issues.map((issue) => `${source}: ${issueLine(issue)}`).join('\n'));
    this.name = 'ConfigError';
  }
}

function issueLine(issue: ValidationIssue): string {
  if (issue.summary !== undefined) return issue.summary;
  const value = issue.value !== undefined ? `: value was ${JSON.stringify(issue.value)}` : '';
  return `${issue.field}: ${issue.message}${value}`;
}
