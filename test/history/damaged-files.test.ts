import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startHttpContext } from '../helpers/http-context.js';
import { recorderOn } from './history-fixture.js';

test('a directory where a ring file belongs is moved aside and the ring rebuilt; history keeps running', async () => {
  const h = await startHttpContext();
  const { recorder, close } = recorderOn(h);
  try {
    mkdirSync(join(h.stateDir, 'history', '15m.ring'), { recursive: true });
    await recorder.start();
    const status = h.ctx.services.get('history');
    assert.equal(status?.state, 'running');
    const names = readdirSync(join(h.stateDir, 'history')).sort();
    assert.ok(statSync(join(h.stateDir, 'history', '15m.ring')).isFile());
    assert.equal(names.filter((name) => name.startsWith('15m.ring.corrupt-')).length, 1, names.join());
    assert.ok(
      h.logLines.some((line) => line.includes('15m.ring was not a ring file of this tier; moved to')),
    );
    assert.equal(status?.directory, 'history', 'relative to the state directory');
    assert.equal(
      JSON.stringify(h.ctx.services.snapshot()).includes(h.stateDir),
      false,
      'no absolute path shown',
    );
  } finally {
    await close();
    await h.close();
  }
});
