import { test } from 'node:test';
import assert from 'node:assert/strict';
import { M123 } from '../../src/export-limiter/sunspec.js';
import { startDaemonProcess } from '../helpers/daemon-process.js';
import { startSimulatedInverter } from '../helpers/simulated-inverter.js';
import { tempDir } from '../helpers/temp-dir.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { waitFor } from '../helpers/wait.js';
import { TelegramServer, telegramFor } from './rig.js';

/**
 * The fail-safe with a real kill (docs/architecture.md#export-limiter): the daemon process limits a
 * simulated inverter running in this process, is SIGKILLed, and the inverter's own revert timer
 * takes over. The inverter keeps a virtual clock that follows real time while the daemon runs;
 * after the kill the test moves it on to the revert time (120 s of real time would be too slow).
 */

for (const model of [704, 123] as const) {
  test(`daemon SIGKILLed while limiting at 16 % (model ${model}, revert ${model === 704 ? 'to 0 %' : 'cancels'}, revert time 120 s): the inverter ${model === 704 ? 'is at 0 %' : 'cancels the limit'} at t + 120 ± 1 s`, async (t) => {
    const clock = new VirtualClock(Date.now());
    const inverter = await startSimulatedInverter({
      clock,
      model704: model === 704,
      deadTimeMs: 500,
      rampWPerS: 5000,
      pv: () => 3000,
    });
    const telegrams = await TelegramServer.start();
    const state = tempDir('mg-limiter-sigkill-', t);
    // The inverter's clock follows real time, and the house (800 W) reaches the daemon once a second.
    let realBase = Date.now();
    let importKwh = 0;
    let exportKwh = 0;
    let sentAt = 0;
    const pump = async () => {
      const now = Date.now();
      await clock.advance(now - realBase);
      realBase = now;
      if (now - sentAt < 1000 || !telegrams.connected) return;
      sentAt = now;
      const grid = 800 - inverter.outputW();
      importKwh += Math.max(0, grid) / 3_600_000;
      exportKwh += Math.max(0, -grid) / 3_600_000;
      telegrams.send(telegramFor(grid, now, importKwh, exportKwh));
    };
    let pumping = true;
    const pumpLoop = (async () => {
      while (pumping) {
        await pump();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const daemon = await startDaemonProcess(state, {
      METER_GATEWAY_METER_SOURCE: `tcp://127.0.0.1:${telegrams.port}`,
      METER_GATEWAY_SERVICES_EXPORT_LIMITER_ENABLED: 'true',
      METER_GATEWAY_SERVICES_EXPORT_LIMITER_INVERTERS: JSON.stringify([
        { id: 'pv1', source: inverter.source, profile: 'sunspec' },
      ]),
      METER_GATEWAY_SERVICES_EXPORT_LIMITER_SAFE_PCT: '0',
      METER_GATEWAY_SERVICES_EXPORT_LIMITER_REVERT_S: '120',
    });
    try {
      // Limiting at 16 % (800 W of 5000 W), the revert time 120 s written with it.
      const revertWritten = (words: number[]) =>
        model === 704 ? words.length === 6 && words[5] === 120 : words.length === 5 && words[2] === 120;
      await waitFor(
        'the daemon to limit the inverter at 16 % with revert time 120 s',
        () => ({ pct: inverter.limitPctNow(), last: inverter.writes.at(-1)?.words ?? [] }),
        ({ pct, last }) => pct === 16 && revertWritten(last),
        { deadlineMs: 40_000 },
      );
      process.kill(daemon.child.pid!, 'SIGKILL');
      assert.equal(await daemon.exited, null, 'killed by the signal');
      pumping = false;
      await pumpLoop;
      const last = inverter.writes.at(-1)!;
      assert.ok(revertWritten(last.words), `the last write before the kill: ${last.words.join(', ')}`);
      const t0 = last.at;
      await clock.advance(t0 + 119_000 - clock.now());
      assert.equal(inverter.limitPctNow(), 16, 'still 16 % at t + 119 s');
      await clock.advance(2000);
      if (model === 704) assert.equal(inverter.limitPctNow(), 0, 'WMaxLimPctRvrt 0 % taken by t + 121 s');
      else {
        assert.equal(inverter.register(inverter.address.m123 + M123.WMaxLim_Ena), 0, 'limit cancelled');
        assert.equal(inverter.limitPctNow(), 100);
      }
      assert.equal(inverter.writes.at(-1), last, 'nothing written after the kill');
    } finally {
      pumping = false;
      await pumpLoop;
      await daemon.stop();
      await telegrams.close();
      await inverter.close();
    }
  });
}
