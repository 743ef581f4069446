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

  body(): { error: ErrorKey; message: string; details: Record<string, unknown> } {
    return { error: this.key, message: this.message, details: this.details };
  }
}
