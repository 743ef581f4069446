/**
 * Status codes of an execution (`ActionStatus.code`), by the device's status table (whatwatt Go
 * documentation, "Actions Status"): the HTTP status for an HTTP request; 1 for a Modbus write the
 * slave confirmed; -1 while running; the device's negative codes for connection and protocol
 * failures of either kind of request; -(100 + n) for Modbus exception n. The one code the device's
 * table has no entry for uses a number it leaves free (docs/architecture.md#actions).
 */
export const CODE = {
  running: -1,
  /** A Modbus write the slave confirmed (the device's "1 Success"); also an action without requests. */
  ok: 1,
  /** No answer within the request's timeout ("Response receive timeout"). */
  timeout: -3,
  /** The connection broke while waiting for the answer ("Response receive error"). */
  receiveError: -4,
  /** The host name does not resolve ("Cannot resolve host"). */
  unresolvable: -16,
  /** Connection refused or host unreachable ("Cannot connect"). */
  connection: -17,
  /** Anything else: a protocol error, a malformed answer ("Cannot process response"). */
  failed: -15,
  /** The request could not be built: a substituted URL, host or value that is invalid (not in the device's table). */
  invalid: -11,
} as const;

/** A Modbus exception response (Modbus Application Protocol V1.1b3 §7): -(100 + exception code). */
export function modbusExceptionCode(exception: number): number {
  return -(100 + exception);
}

/** Whether a request's code is a success: 2xx for HTTP, 1 for Modbus. */
export function succeeded(code: number): boolean {
  return code === CODE.ok || (code >= 200 && code < 300);
}

/** The code of a socket-level failure by its errno (Node's `error.code`). */
export function networkFailureCode(errno: string | undefined): number {
  switch (errno) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return CODE.unresolvable;
    case 'ECONNREFUSED':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return CODE.connection;
    case 'ETIMEDOUT':
      return CODE.timeout;
    case 'ECONNRESET':
    case 'EPIPE':
      return CODE.receiveError;
    default:
      return CODE.failed;
  }
}
