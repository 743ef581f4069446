import type { ApplyingAnswer } from '../../contracts/settings.js';
import { issuesOf, type FieldIssue } from './fields.js';
import { tServer } from './i18n/i18n.js';
import { showOriginRefusal } from './origin-refusal.js';

/**
 * A failed API call: status, the error body's key and message, and the fields it names;
 * `messageKey` and `args` name the message for the page's language (tServer).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly key: string,
    message: string,
    readonly fields: FieldIssue[],
    readonly messageKey?: string,
    readonly args?: Record<string, unknown>,
    /** A 500 of a stored write: the outputs that did not take it up, and why. */
    readonly failed: readonly { output: string; message: string }[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The message in the page's language where the server named it by a key, else its English. */
  get text(): string {
    return tServer(this.message, this.messageKey, this.args);
  }
}

/** The API's error body ({error, message, details}) as an ApiError. */
export async function errorOf(response: Response): Promise<ApiError> {
  let body: { error?: unknown; message?: unknown; details?: unknown; key?: unknown; args?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the status line is all there is.
  }
  const message = typeof body.message === 'string' ? body.message : `HTTP ${response.status}`;
  const key = typeof body.error === 'string' ? body.error : 'http_error';
  const details = body.details as { refused?: unknown; address?: unknown } | undefined;
  if (details?.refused === 'origin' && typeof details.address === 'string')
    showOriginRefusal(details.address);
  const args =
    typeof body.args === 'object' && body.args !== null ? (body.args as Record<string, unknown>) : {};
  const messageKey = typeof body.key === 'string' ? body.key : undefined;
  return new ApiError(
    response.status,
    key,
    message,
    issuesOf(body.details),
    messageKey,
    args,
    failedOf(body.details),
  );
}

/** `details.failed` of a write's 500 (docs/architecture.md#output-contract), entries checked. */
function failedOf(details: unknown): { output: string; message: string }[] {
  const failed = (details as { failed?: unknown } | undefined)?.failed;
  if (!Array.isArray(failed)) return [];
  return failed.filter(
    (entry): entry is { output: string; message: string } =>
      typeof entry?.output === 'string' && typeof entry?.message === 'string',
  );
}

/** Whether an answer is the 202 of a write whose outputs were still applying it. */
export function isApplying(data: unknown): data is ApplyingAnswer {
  const answer = data as Partial<ApplyingAnswer> | null;
  return answer?.state === 'applying' && Array.isArray(answer.outputs);
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

export function element<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`page element #${id} missing`);
  return found as T;
}
