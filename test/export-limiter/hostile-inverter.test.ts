import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { RETRY_MIN_MS } from '../../src/export-limiter/limiter.js';
import type { Fault } from '../helpers/simulated-inverter.js';
import { startRig } from './rig.js';

/**
 * Hostile inverters (docs/architecture.md#export-limiter): exceptions, garbage, a not-a-number
 * output, a socket that dies mid-write, a single-client inverter held by another client. Each gives
 * a clear state, no write storm (attempts spaced at least RETRY_MIN_MS), and the limiter keeps
 * running and controls again once the inverter behaves.
 */

const CASES: { fault: Fault; state: string; error: RegExp }[] = [
  { fault: 'exception', state: 'inverter_lost', error: /exception|SunSpec/ },
  { fault: 'garbage', state: 'inverter_lost', error: /./ },
  { fault: 'nan', state: 'inverter_lost', error: /absent|not a number/ },
  { fault: 'dead_on_write', state: 'inverter_lost', error: /./ },
];

for (const entry of CASES) {
  test(`an inverter answering with ${entry.fault}: state ${entry.state}, no write storm, control again once it answers`, async () => {
    const rig = await startRig({ load: () => 800 });
    try {
      await rig.run(5000);
      assert.equal(rig.limiter!.status().state, 'limiting');
      rig.inverter.fault = entry.fault;
      // Make the limiter write: the load changes.
      rig.load = () => 1500;
      const before = rig.inverter.writes.length;
      const attempts: number[] = [];
      const connections = rig.inverter.connections;
      await rig.run(60_000, () => {
        const status = rig.limiter!.status();
        if (status.inverters[0]!.failures > attempts.length) attempts.push(rig.clock.now());
      });
      const status = rig.limiter!.status();
      assert.equal(status.state, entry.state, JSON.stringify(status));
      assert.match(status.inverters[0]!.error ?? '', entry.error);
      for (let index = 1; index < attempts.length; index++)
        assert.ok(attempts[index]! - attempts[index - 1]! >= RETRY_MIN_MS, `attempts ${attempts.join(', ')}`);
      assert.ok(attempts.length <= 12, `${attempts.length} failed attempts in a minute`);
      assert.ok(rig.inverter.writes.length - before <= 12, 'no write storm');
      assert.ok(rig.inverter.connections - connections <= 13, 'no connection storm');
      rig.inverter.fault = 'none';
      await rig.run(90_000);
      const back = rig.limiter!.status();
      assert.equal(back.state, 'limiting');
      assert.ok(Math.abs(rig.gridW()) <= 50, `grid ${rig.gridW()} W once the inverter answers again`);
    } finally {
      await rig.close();
    }
  });
}

test('a single-client inverter held by another client: state busy, retries no faster than 5 s', async () => {
  const rig = await startRig({ load: () => 800, inverter: { singleClient: true } });
  try {
    await rig.run(5000);
    assert.equal(rig.limiter!.status().state, 'limiting');
    rig.inverter.dropClients();
    const other = connect(rig.inverter.port, '127.0.0.1');
    await once(other, 'connect');
    // Let the simulated inverter accept the other client before the limiter reconnects.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refusedBefore = rig.inverter.refused;
    await rig.run(60_000);
    assert.equal(rig.limiter!.status().state, 'busy', JSON.stringify(rig.limiter!.status()));
    const refused = rig.inverter.refused - refusedBefore;
    assert.ok(refused >= 1 && refused <= 12, `${refused} connection attempts in 60 s`);
    other.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await rig.run(90_000);
    assert.equal(rig.limiter!.status().state, 'limiting');
  } finally {
    await rig.close();
  }
});
