import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRig } from './rig.js';

/**
 * The limiter's memory (`<state>/export-limiter.json`) held to its contract
 * (docs/architecture.md#durability): a file that is cut short, of another version or missing a
 * field is moved aside as `.corrupt-<time>`, counted as state_file_corrupt, and nothing is
 * remembered: the restarted limiter takes the limit it finds for the installer's.
 */
for (const [variant, damage] of [
  ['truncated', (text: string) => text.slice(0, text.length / 2)],
  ['of another version', (text: string) => text.replace('"version": 1', '"version": 2')],
  [
    'missing a field',
    (text: string) => {
      const file = JSON.parse(text) as { inverters: Record<string, { source?: string }> };
      delete file.inverters['pv1']!.source;
      return JSON.stringify(file);
    },
  ],
] as const) {
  test(`a memory file ${variant} is moved aside, counted, and the restarted limiter starts from empty`, async () => {
    const rig = await startRig({ load: () => 800, inverter: { model704: true } });
    try {
      await rig.run(30_000);
      assert.equal(rig.inverter.limitPctNow(), 16);
      rig.kill();
      const dir = rig.ctx.config.stateDirectory.dir;
      const path = join(dir, 'export-limiter.json');
      const text = readFileSync(path, 'utf8');
      const damaged = damage(text);
      assert.notEqual(damaged, text);
      writeFileSync(path, damaged);
      await rig.restart();
      await rig.run(1000);
      const aside = readdirSync(dir).filter((name) => name.startsWith('export-limiter.json.corrupt-'));
      assert.equal(aside.length, 1, readdirSync(dir).join(', '));
      assert.equal(readFileSync(join(dir, aside[0]!), 'utf8'), damaged);
      assert.equal(rig.ctx.refusals.get('state_file_corrupt'), 1);
      // Nothing remembered: the gateway's own 16 % is what the restarted limiter found.
      assert.equal(rig.limiter!.status().inverters[0]!.installer_limit_pct, 16);
      const fresh = JSON.parse(readFileSync(path, 'utf8')) as { version: number };
      assert.equal(fresh.version, 1);
    } finally {
      await rig.close();
    }
  });
}
