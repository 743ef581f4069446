import type { TSchema } from 'typebox';
import type { Compile } from 'typebox/compile';
import { loadContracts, type ContractRef } from './contract-ref.js';
import { HttpError } from './errors.js';

/**
 * The check of a JSON request body against its contract (src/contracts/, docs/architecture.md#api-contracts):
 * TypeBox's compiled checker, built on the first request of the route (a route never asked costs no
 * memory), so a 400 `validation_failed` names each field as the schema names it.
 */

export interface BodyIssue {
  /** The field as the body names it: `device`, `requests[0].url`; '' for the body itself. */
  field: string;
  message: string;
  /** The rule's message key and arguments (docs/architecture.md#server-message-keys), where it has one. */
  key?: string;
  args?: Record<string, string | number>;
  value?: unknown;
}

/** The JSON types the page has a rule text for: a `type` failure names one of these. */
const TYPE_KEYS: Readonly<Record<string, string>> = {
  integer: 'rule.integer',
  number: 'rule.number',
  string: 'rule.string',
  boolean: 'rule.boolean',
  object: 'rule.object',
  array: 'rule.array',
};

/** A keyword's failure as the page's rule key and arguments; undefined where none words it. */
function ruleOf(error: ValidatorError): Pick<BodyIssue, 'key' | 'args'> | undefined {
  const params = error.params as { limit?: unknown; type?: unknown; pattern?: unknown };
  const limit = typeof params.limit === 'number' ? params.limit : undefined;
  switch (error.keyword) {
    case 'minimum':
    case 'exclusiveMinimum':
      return limit === undefined ? undefined : { key: 'rule.minimum', args: { limit } };
    case 'maximum':
    case 'exclusiveMaximum':
      return limit === undefined ? undefined : { key: 'rule.maximum', args: { limit } };
    case 'minLength':
      return limit === undefined ? undefined : { key: 'rule.min_length', args: { limit } };
    case 'maxLength':
      return limit === undefined ? undefined : { key: 'rule.max_length', args: { limit } };
    case 'minItems':
      return limit === undefined ? undefined : { key: 'rule.min_items', args: { limit } };
    case 'maxItems':
      return limit === undefined ? undefined : { key: 'rule.max_items', args: { limit } };
    case 'pattern':
      return typeof params.pattern === 'string'
        ? { key: 'rule.pattern', args: { pattern: params.pattern } }
        : undefined;
    case 'type': {
      const key = typeof params.type === 'string' ? TYPE_KEYS[params.type] : undefined;
      return key === undefined ? undefined : { key, args: {} };
    }
    default:
      return undefined;
  }
}

type Checker = ReturnType<typeof Compile<TSchema>>;
type ValidatorError = ReturnType<Checker['Errors']>[number];

const checkers = new WeakMap<TSchema, Checker>();

async function checkerOf(schema: TSchema): Promise<Checker> {
  let checker = checkers.get(schema);
  if (!checker) {
    // The compiler loads with the first body checked, as the schemas do.
    const { Compile } = await import('typebox/compile');
    checker = Compile(schema);
    checkers.set(schema, checker);
  }
  return checker;
}

/** A JSON Pointer of the body (`/requests/0/url`) as a field name (`requests[0].url`). */
function fieldOf(pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  return parts.reduce(
    (field, part) => (/^\d+$/.test(part) ? `${field}[${part}]` : field === '' ? part : `${field}.${part}`),
    '',
  );
}

function valueAt(body: unknown, pointer: string): unknown {
  let node = body;
  for (const part of pointer.split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

const join = (parent: string, name: string) => (parent === '' ? name : `${parent}.${name}`);

/** One validator error as the fields it names: a missing or unexpected property names itself. */
function issuesOf(error: ValidatorError, body: unknown): BodyIssue[] {
  const at = fieldOf(error.instancePath);
  const params = error.params as { requiredProperties?: string[]; additionalProperties?: string[] };
  if (error.keyword === 'required')
    return (params.requiredProperties ?? []).map((name) => ({
      field: join(at, name),
      message: 'is required',
      key: 'rule.required',
      args: {},
    }));
  if (error.keyword === 'additionalProperties')
    return (params.additionalProperties ?? []).map((name) => ({
      field: join(at, name),
      message: 'is not allowed',
      key: 'rule.not_allowed',
      args: {},
    }));
  // The failure of a sub-schema is reported once by the keyword that failed, not again by its parent.
  if (error.keyword === 'boolean' || error.keyword === 'anyOf') return [];
  return [{ field: at, message: error.message, ...ruleOf(error), value: valueAt(body, error.instancePath) }];
}

/** The body's problems against `schema`, one per field (first message wins); empty when it conforms. */
export async function bodyIssues(schema: TSchema, body: unknown): Promise<BodyIssue[]> {
  const checker = await checkerOf(schema);
  if (checker.Check(body)) return [];
  const byField = new Map<string, BodyIssue>();
  // A union of literals fails once per literal (`const`): the field's issue names them all.
  const allowed = new Map<string, string[]>();
  for (const error of checker.Errors(body)) {
    if (error.keyword === 'const') {
      const value = (error.params as { allowedValue?: unknown }).allowedValue;
      const field = fieldOf(error.instancePath);
      allowed.set(field, [...(allowed.get(field) ?? []), String(value)]);
    }
    for (const issue of issuesOf(error, body)) if (!byField.has(issue.field)) byField.set(issue.field, issue);
  }
  for (const [field, values] of allowed) {
    const issue = byField.get(field);
    if (issue?.key === undefined && issue !== undefined) {
      issue.key = 'rule.one_of';
      issue.args = { values: values.join(', ') };
    }
  }
  if (byField.size === 0) byField.set('', { field: '', message: 'does not match the request schema' });
  return [...byField.values()];
}

/** The part of a request a contract checks, as the 400's message names it. */
export type RequestPart = 'body' | 'query' | 'path';

/** 400 validation_failed naming every field of the body that breaks its contract. */
export async function checkBody(ref: ContractRef, body: unknown): Promise<void> {
  await checkPart(ref, body, 'body');
}

/**
 * 400 validation_failed naming every field of a request part (the JSON body, the query's
 * parameters, the path's parameters) that breaks its contract.
 */
export async function checkPart(ref: ContractRef, value: unknown, part: RequestPart): Promise<void> {
  const contracts = await loadContracts();
  const issues = await bodyIssues(contracts[ref.contract], value);
  if (issues.length === 0) return;
  throw new HttpError(
    400,
    'validation_failed',
    `invalid request ${part}: ${issues.map((issue) => `${issue.field || part} ${issue.message}`).join('; ')}`,
    { fields: issues },
  ).withKey('error.invalid_request', { fields: issues.map((issue) => issue.field || part).join(', ') });
}
