/** A field named by the API's validation error body (details.fields or details.issues). */
export interface FieldIssue {
  field: string;
  message: string;
}

/** A failed API call: status, the error body's key and message, and the fields it names. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly key: string,
    message: string,
    readonly fields: FieldIssue[],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function issuesOf(details: unknown): FieldIssue[] {
  if (typeof details !== 'object' || details === null) return [];
  const { fields, issues } = details as { fields?: unknown; issues?: unknown };
  const list = Array.isArray(fields) ? fields : Array.isArray(issues) ? issues : [];
  return list.flatMap((item: unknown) => {
    const { field, path, message, set, register } = (item ?? {}) as Record<string, unknown>;
    let name = typeof field === 'string' ? field : typeof path === 'string' ? path : '';
    // Modbus layout issues locate the field by register set and register.
    if (typeof register === 'number') name = `register ${register}${name ? ` ${name}` : ''}`;
    if (typeof set === 'number') name = `set ${set}${name ? `, ${name}` : ''}`;
    return typeof message === 'string' ? [{ field: name, message }] : [];
  });
}

/** The API's error body ({error, message, details}) as an ApiError. */
export async function errorOf(response: Response): Promise<ApiError> {
  let body: { error?: unknown; message?: unknown; details?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the status line is all there is.
  }
  const message = typeof body.message === 'string' ? body.message : `HTTP ${response.status}`;
  const key = typeof body.error === 'string' ? body.error : 'http_error';
  return new ApiError(response.status, key, message, issuesOf(body.details));
}

/**
 * A gateway path as a URL relative to the page (no leading slash): the interface then works under
 * a path prefix, such as Home Assistant's ingress (/api/hassio_ingress/<token>/), as well as at /.
 */
export function pageRelative(path: string): string {
  return path.replace(/^\/+/, '');
}

/** A JSON request to the gateway's own API; resolves with the parsed body (undefined for 204). */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: { Accept: 'application/json' }, cache: 'no-store' };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
  }
  const response = await fetch(pageRelative(path), init);
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** Value at a dotted path of a JSON object. */
export function valueAt(object: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (node, key) =>
        node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined,
      object,
    );
}

/** Sets a value at a dotted path, creating objects on the way. */
export function setAt(object: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = object;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node = (typeof next === 'object' && next !== null ? next : (node[key] = {})) as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

export function element<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`page element #${id} missing`);
  return found as T;
}
