// The push's service state (/api/v1/system) follows its targets' states: a target that turns
// clock_unsynced after it started makes it `retrying` with that reason, not only a change of the
// target list.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { runOutput } from '../../src/output-runner.js';
import { PushOutput } from '../../src/push/push-output.js';
import { startHttpContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';

test('push service state: retrying once a running target is clock_unsynced', async (t) => {
  // A receiver whose Date header is the real time; the gateway's clock runs two hours ahead.
  const server = createServer((_, response) => response.writeHead(204).end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const h = await startHttpContext();
  const output = new PushOutput(h.ctx, h.ctx.logger, {
    meters: () => [],
    quarters: () => Promise.resolve([]),
  });
  const running = runOutput(h.ctx, output);
  t.after(async () => {
    await running.stop();
    await h.close();
  });
  h.clock.advance(2 * 3_600_000);
  const { port } = server.address() as { port: number };
  await running.start();
  assert.deepEqual(h.ctx.services.get('push'), { state: 'disabled', targets: 0 });
  const write = h.ctx.config.apply(
    new Map([
      [
        'services.push.targets',
        [{ id: 'fleet', kind: 'vm_import', url: `http://127.0.0.1:${port}/api/v1/import` }],
      ],
    ]),
  );
  assert.ok(write.ok, JSON.stringify(write));
  assert.deepEqual(await write.settled, []);
  assert.equal(h.ctx.services.get('push')?.state, 'running');
  await waitFor('the target to find the clock off', () => output.status()[0]?.state === 'clock_unsynced');
  const line = h.ctx.services.get('push');
  assert.equal(line?.state, 'retrying');
  assert.equal(line?.targets, 1);
  assert.match(String(line?.error), /^fleet clock_unsynced/);
});
