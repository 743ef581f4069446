import type { Logger } from '../log.js';
import { boundedRequest, OUTGOING_BODY_LIMIT, type OutgoingCounters } from '../outgoing.js';
import { proxyAgentsFor } from '../device/proxy-agent.js';
import { DEFAULTS, type HttpRequestDefinition } from './definition.js';
import { CODE, networkFailureCode } from './status-codes.js';

/** An HTTP request after substitution. */
export interface PreparedHttpRequest extends HttpRequestDefinition {
  headers: Record<string, string>;
}

/**
 * One HTTP request of an action through got (loaded with the first HTTP action): the answer's
 * status is the code. got's retries are off (a POST that timed out may have switched the device;
 * sending it again is the action's decision, not the transport's), redirects are not followed,
 * the timeout covers the whole exchange, and HTTP(S)_PROXY / NO_PROXY are honoured. Only the status
 * is used: at most OUTGOING_BODY_LIMIT bytes of the answer are read, a longer one is aborted there
 * (docs/architecture.md#hostile-input); both bounds are counted in `counters` when hit.
 */
export async function runHttpRequest(
  request: PreparedHttpRequest,
  log: Logger,
  counters?: OutgoingCounters,
): Promise<number> {
  let target: URL;
  try {
    target = new URL(request.url);
  } catch {
    log.warn(`action request: invalid URL ${JSON.stringify(request.url)} after substitution`);
    return CODE.invalid;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    log.warn(`action request: unsupported URL scheme ${target.protocol}`);
    return CODE.invalid;
  }
  const timeoutMs = (request.timeout ?? DEFAULTS.httpTimeoutSeconds) * 1000;
  const method = request.method ?? DEFAULTS.method;
  const { got, TimeoutError, RequestError } = await import('got');
  const agents = await proxyAgentsFor(target, process.env);
  try {
    const answer = await boundedRequest(got, target, {
      method,
      headers: request.headers,
      ...(request.payload !== undefined && method !== 'GET' ? { body: request.payload } : {}),
      timeout: { request: timeoutMs },
      agent: agents,
    });
    if (answer.cut) {
      if (counters) counters.answers_cut += 1;
      log.warn(
        `action request ${method} ${target.origin}: answer longer than ${OUTGOING_BODY_LIMIT} bytes, aborted there`,
      );
    }
    return answer.statusCode;
  } catch (error) {
    if (error instanceof TimeoutError) {
      if (counters) counters.timeouts += 1;
      log.warn(`action request ${method} ${target.origin}: no answer within ${timeoutMs} ms`);
      return CODE.timeout;
    }
    if (error instanceof RequestError) {
      log.warn(`action request ${method} ${target.origin}: ${error.message}`);
      return networkFailureCode(error.code);
    }
    log.warn(`action request ${method} ${target.origin}: ${(error as Error).message}`);
    return CODE.failed;
  } finally {
    // A proxy agent is made per request: its kept-alive socket must not outlive it.
    agents.http?.destroy();
    agents.https?.destroy();
  }
}
