import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWifiBackend } from '../../../src/device/wifi/backend.js';
import { assertPowerSaveAllowed } from '../../../src/http/routes/wifi.js';
import { registerCoreRoutes } from '../../../src/http/routes/core.js';
import { startHttpContext } from '../../helpers/http-context.js';

/** A /sys/class/net with one wired interface whose carrier is `carrier`. */
function sysClassNet(carrier: '0' | '1'): string {
  const root = mkdtempSync(join(tmpdir(), 'mg-sysnet-'));
  const eth = join(root, 'eth0');
  mkdirSync(join(eth, 'device'), { recursive: true });
  writeFileSync(join(eth, 'type'), '1\n');
  writeFileSync(join(eth, 'carrier'), `${carrier}\n`);
  return root;
}

for (const [carrier, expected] of [
  ['1', 400],
  ['0', 200],
] as const) {
  test(`PUT /api/v1/settings system.power_save with the Ethernet carrier ${carrier}: ${expected}`, async () => {
    const net = sysClassNet(carrier);
    const h = await startHttpContext({
      routes: (router, ctx) => {
        // No nmcli on this PATH: the file backend, with the fake sysfs for the Ethernet check.
        const wifi = createWifiBackend(ctx, { pathEnv: '/nonexistent', sysClassNet: net });
        registerCoreRoutes(router, ctx, {
          settingsGuard: async (changes) => {
            if (changes.has('system.power_save'))
              await assertPowerSaveAllowed(wifi, changes.get('system.power_save'));
          },
        });
      },
    });
    try {
      const response = await fetch(`${h.baseUrl}/api/v1/settings`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ system: { power_save: true } }),
      });
      assert.equal(response.status, expected);
      const body = (await response.json()) as { error?: string; system?: { power_save: boolean } };
      if (expected === 400) {
        assert.equal(body.error, 'validation_failed');
        assert.equal(h.ctx.config.config.system.power_save, false, 'nothing stored');
      } else {
        assert.equal(body.system?.power_save, true);
      }
    } finally {
      await h.close();
    }
  });
}
