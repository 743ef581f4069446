/**
 * Status codes of an execution (`ActionStatus.code`): the HTTP status for an HTTP request, 0 for a
 * Modbus write that the slave confirmed, -1 while running, and these negative codes otherwise
 * (docs/architecture.md#actions).
 */
export const CODE = {
  running: -1,
  /** No answer within the request's timeout. */
  timeout: -2,
  /** Connection refused, reset, host unreachable or not resolvable. */
  connection: -3,
  /** The request could not be built: a substituted URL or value that is invalid. */
  invalid: -4,
  /** Anything else (a protocol error, a malformed answer). */
  failed: -5,
  /** Not run: the daemon stopped, or the actions were switched off, before its turn. */
  cancelled: -6,
} as const;

/** A Modbus exception response (Modbus Application Protocol V1.1b3 §7): -(100 + exception code). */
export function modbusExceptionCode(exception: number): number {
  return -(100 + exception);
}

/** Whether a request's code is a success: 2xx for HTTP, 0 for Modbus. */
export function succeeded(code: number): boolean {
  return code === 0 || (code >= 200 && code < 300);
}
