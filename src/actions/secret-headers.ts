import type { ActionDefinition, ActionsDefinition, HttpRequestDefinition } from './definition.js';

/**
 * Secret request headers (docs/architecture.md#actions): the values of `Authorization`,
 * `Proxy-Authorization`, `Cookie`, `X-Api-Key` and of every header an HTTP request lists in its
 * `secret_headers` are write-only, like the MQTT password. They are kept in the secrets state
 * file (`actions.header_secrets`, mode 0600), by action id, request index and header name; the
 * definition (`actions.definition`, `actions.json`) keeps only their names in `secret_headers`.
 * GET shows `secret_headers_len` (the length of each value) instead; a backup holds the values
 * only when it asks for secrets. A request that lists a name in `secret_headers` without sending
 * the header keeps the stored value, so a definition read back from GET can be posted again.
 */

/** Header names (lower case) whose values are always secret (RFC 9110 §11.6.2, §11.7.2; RFC 6265 §5.4). */
export const SENSITIVE_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
]);

/** Stored values: action id -> request index -> header name -> value (own properties only). */
export type HeaderSecrets = Record<string, Record<string, Record<string, string>>>;

function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Whether a header's value is secret: a sensitive name, or one the request lists as secret. Also
 * called on a request not yet checked (its `secret_headers` of any type): a malformed list just
 * marks nothing.
 */
export function isSecretHeader(name: string, http: { readonly secret_headers?: unknown }): boolean {
  const lower = name.toLowerCase();
  const marked = http.secret_headers;
  return (
    SENSITIVE_HEADERS.has(lower) ||
    (Array.isArray(marked) && marked.some((n) => typeof n === 'string' && n.toLowerCase() === lower))
  );
}

function splitHttp(
  http: HttpRequestDefinition,
  stored: Readonly<Record<string, string>> | undefined,
): { http: HttpRequestDefinition; values: Record<string, string> } {
  const { secret_headers_len: _shown, secret_headers: marked = [], headers = {}, ...rest } = http;
  const values = new Map<string, string>();
  const visible = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (isSecretHeader(name, http)) values.set(name, value);
    else visible.set(name, value);
  }
  // Listed but not sent: the stored value stays (a definition read back from GET).
  for (const name of marked) {
    const kept = own(stored, name);
    if (![...values.keys()].some((n) => n.toLowerCase() === name.toLowerCase()) && kept !== undefined)
      values.set(name, kept);
  }
  const names = [...new Set([...values.keys(), ...marked])];
  const out: HttpRequestDefinition = { ...rest };
  if (visible.size > 0) out.headers = Object.fromEntries(visible);
  if (names.length > 0) out.secret_headers = names;
  return { http: out, values: Object.fromEntries(values) };
}

/**
 * Splits a written definition into what `actions.json` keeps (no secret value) and the secret
 * values, taking the stored values of headers the definition lists without sending.
 */
export function splitSecretHeaders(
  definition: ActionsDefinition,
  stored: Readonly<HeaderSecrets>,
): { definition: ActionsDefinition; secrets: HeaderSecrets } {
  const secrets = new Map<string, Record<string, Record<string, string>>>();
  const actions = (definition.actions ?? []).map((action): ActionDefinition => {
    if (action.requests === undefined) return action;
    const byIndex = new Map<string, Record<string, string>>();
    const requests = action.requests.map((request, index) => {
      if (!request.http) return request;
      const split = splitHttp(request.http, own(own(stored, action.id), String(index)));
      if (Object.keys(split.values).length > 0) byIndex.set(String(index), split.values);
      return { ...request, http: split.http };
    });
    if (byIndex.size > 0) secrets.set(action.id, Object.fromEntries(byIndex));
    return { ...action, requests };
  });
  const out: ActionsDefinition = { ...definition };
  if (definition.actions !== undefined) out.actions = actions;
  return { definition: out, secrets: Object.fromEntries(secrets) };
}

function mapHttp(
  definition: ActionsDefinition,
  each: (http: HttpRequestDefinition, values: StoredValues) => HttpRequestDefinition,
  secrets: Readonly<HeaderSecrets>,
): ActionsDefinition {
  if (definition.actions === undefined) return definition;
  return {
    ...definition,
    actions: definition.actions.map((action) =>
      action.requests === undefined
        ? action
        : {
            ...action,
            requests: action.requests.map((request, index) =>
              request.http
                ? { ...request, http: each(request.http, own(own(secrets, action.id), String(index))) }
                : request,
            ),
          },
    ),
  };
}

type StoredValues = Readonly<Record<string, string>> | undefined;

/** One request with the stored values of its listed secret headers back in its headers. */
function restoreHeaders(http: HttpRequestDefinition, values: StoredValues): HttpRequestDefinition {
  const listed = (http.secret_headers ?? []).flatMap((name) => {
    const value = own(values, name);
    return value === undefined ? [] : [[name, value] as const];
  });
  return listed.length === 0
    ? http
    : { ...http, headers: { ...http.headers, ...Object.fromEntries(listed) } };
}

/** The definition the runner executes: the stored secret values back in the headers. */
export function withSecretHeaders(
  definition: ActionsDefinition,
  secrets: Readonly<HeaderSecrets>,
): ActionsDefinition {
  return mapHttp(definition, restoreHeaders, secrets);
}

/**
 * The definition as GET shows it: no secret value (one written inline by the admin's file is cut
 * out too), and `secret_headers_len` giving the length of each stored value (0: none stored).
 */
export function secretHeadersView(
  definition: ActionsDefinition,
  secrets: Readonly<HeaderSecrets>,
): ActionsDefinition {
  return mapHttp(definition, headersView, secrets);
}

/** One request without its secret values, with the length of each stored one. */
function headersView(http: HttpRequestDefinition, values: StoredValues): HttpRequestDefinition {
  const split = splitHttp(http, values);
  if (split.http.secret_headers === undefined) return split.http;
  const lengths = split.http.secret_headers.map((name) => [
    name,
    [...(own(split.values, name) ?? '')].length,
  ]);
  return { ...split.http, secret_headers_len: Object.fromEntries(lengths) as Record<string, number> };
}
