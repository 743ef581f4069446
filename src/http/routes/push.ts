import type { PushView } from '../../contracts/push.js';
import type { PushOutput } from '../../push/push-output.js';
import { contract } from '../contract-ref.js';
import { sendJson } from '../respond.js';
import type { Router } from '../router.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The push targets' states as GET /api/v1/push shows them (docs/architecture.md#push). */
export function pushView(push: PushOutput): PushView {
  return {
    targets: push.status().map((target) => ({
      id: target.id,
      kind: target.kind,
      state: target.state,
      cursor: target.cursor > 0 ? iso(target.cursor * 1000) : null,
      backlog_quarters: target.backlog_quarters,
      last_error: target.last_error,
      last_success: iso(target.last_success),
      clock_skew_ms: target.clock_skew_ms,
      counts: target.counts,
    })),
  };
}

export function registerPushRoutes(router: Router, push: PushOutput): void {
  router.add('GET', '/api/v1/push', (_request, response) => sendJson(response, 200, pushView(push)), {
    doc: {
      summary: 'Fleet push: per target its state, cursor, backlog of quarter hours, last error and counters',
      responses: {
        200: {
          description: 'push targets (empty while none is enabled)',
          schema: contract('PushViewSchema'),
        },
      },
    },
  });
}
