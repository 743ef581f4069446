/**
 * The error body of every failed request (docs/architecture.md#errors): {"error": key, "message": text,
 * "details": {}}.
 */
export type ErrorKey =
  | 'bad_request'
  | 'validation_failed'
  | 'unauthorized'
  | 'not_found'
  | 'method_not_allowed'
  | 'license_required'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'too_many_requests'
  | 'request_timeout'
  | 'headers_too_large'
  | 'internal_error'
  | 'service_unavailable'
  | 'update_unavailable';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly key: ErrorKey,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string | string[]> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** The message's key and arguments (docs/architecture.md#server-message-keys), set by withKey. */
  private text: { key: string; args: Record<string, string | number> } | undefined;

  /** Names the message by a key and its arguments, for a client that words it in its own language. */
  withKey(key: string, args: Record<string, string | number> = {}): this {
    this.text = { key, args };
    return this;
  }

  /** The error body; message and details bounded (ERROR_BODY_LIMITS), whatever a writer put in them. */
  body(): {
    error: ErrorKey;
    message: string;
    details: Record<string, unknown>;
    key?: string;
    args?: Record<string, string | number>;
  } {
    const details = boundedValue(this.details, 0);
    const args = this.text ? boundedValue(this.text.args, 0) : undefined;
    return {
      error: this.key,
      message: boundedText(this.message, ERROR_BODY_LIMITS.messageChars),
      details: isRecord(details) ? details : {},
      ...(this.text
        ? { key: this.text.key, args: (isRecord(args) ? args : {}) as Record<string, string | number> }
        : {}),
    };
  }
}

/**
 * Bounds of what an error body echoes (docs/architecture.md#hostile-input): a validation detail may carry
 * the offending value, which a client chose; beyond these bounds it is cut, never serialised whole.
 */
export const ERROR_BODY_LIMITS = { depth: 6, entries: 50, chars: 200, messageChars: 500 } as const;

const OMITTED = '[omitted]';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function boundedText(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}

/**
 * A JSON-safe copy of `value` within ERROR_BODY_LIMITS: strings cut, arrays and objects to their first
 * entries, anything deeper (or cyclic) replaced by a marker. The recursion is bounded by the depth limit.
 */
function boundedValue(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return boundedText(value, ERROR_BODY_LIMITS.chars);
  if (value === undefined) return undefined;
  if (typeof value !== 'object') return boundedText(String(value), ERROR_BODY_LIMITS.chars);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (depth >= ERROR_BODY_LIMITS.depth) return OMITTED;
  if (Array.isArray(value)) {
    const items = value.slice(0, ERROR_BODY_LIMITS.entries).map((item) => boundedValue(item, depth + 1));
    if (value.length > items.length) items.push(`${OMITTED} ${value.length - items.length} more`);
    return items;
  }
  const copy: Record<string, unknown> = {};
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (count++ === ERROR_BODY_LIMITS.entries) break;
    Object.defineProperty(copy, boundedText(key, ERROR_BODY_LIMITS.chars), {
      value: boundedValue((value as Record<string, unknown>)[key], depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
