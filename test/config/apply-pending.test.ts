import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { silentLogger } from '../helpers/log-lines.js';
import { tempDir } from '../helpers/temp-dir.js';

// A write's `pending()` names the owners whose listeners are still applying it
// (docs/architecture.md#output-contract): an owner with two listeners at work stays named until
// both have settled, so a 202 never leaves out an output that is still busy.

registerConfigFormats();

test('an owner with two listeners at work is pending until both have settled', async (t) => {
  const ctx = createAppContext({ stateDir: tempDir('mg-pending-', t), logger: silentLogger() });
  const gates: Array<() => void> = [];
  const listener = () => new Promise<void>((resolve) => gates.push(resolve));
  ctx.config.subscribe('busy', 'change', listener);
  ctx.config.subscribe('busy', 'change', () => listener());
  const result = ctx.config.apply(new Map<string, unknown>([['services.sd.frequency', 7]]));
  assert.ok(result.ok);
  assert.equal(gates.length, 2);
  assert.deepEqual(result.pending(), ['busy']);
  gates[0]!();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(result.pending(), ['busy'], 'one of its two listeners is still at work');
  gates[1]!();
  assert.deepEqual(await result.settled, []);
  assert.deepEqual(result.pending(), []);
});
