// backlog_quarters counts the complete quarter hours after the quarter cursor; a target whose
// `what` has no quarters never moves that cursor, so its backlog is 0, not a number that grows by
// 96 a day (docs/guide/fleet-push.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startHttpContext } from '../helpers/http-context.js';
import { setClock } from '../history/history-fixture.js';
import { pushClient, QUARTER_MS, quarterHoursAgo } from './push-fixture.js';

test('a target without quarters reports no quarter backlog; one with quarters counts its quarters', async (t) => {
  const h = await startHttpContext();
  t.after(() => h.close());
  setClock(h, quarterHoursAgo(0));
  const url = 'http://127.0.0.1:9/api/v1/import';
  const quarters = pushClient(h, [], { url, kind: 'vm_import', id: 'quarters', what: ['quarters'] });
  const minutes = pushClient(h, [], { url, kind: 'vm_import', id: 'minutes', what: ['minutes'] });
  const live = pushClient(h, [], { url, kind: 'vm_import', id: 'live', what: ['power_1s'] });
  setClock(h, h.clock.now() + 24 * 4 * QUARTER_MS);
  assert.ok(quarters.status().backlog_quarters >= 96, `${quarters.status().backlog_quarters}`);
  assert.equal(minutes.status().backlog_quarters, 0);
  assert.equal(live.status().backlog_quarters, 0);
});
