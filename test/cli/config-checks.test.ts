import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliCommand, repoRoot } from '../helpers/environment.js';

/**
 * The checks of the dedicated routes hold for the admin's file and the environment too
 * (docs/architecture.md#configuration): a bad value stops the daemon at start-up with exit 1 and a
 * line naming the key, before anything starts.
 */

function runDaemon(args: string[], env: NodeJS.ProcessEnv): { status: number | null; stderr: string } {
  const { command, args: base } = cliCommand();
  const result = spawnSync(command, [...base, ...args], {
    cwd: repoRoot,
    env: { ...process.env, METER_GATEWAY_HTTP_HOST: '127.0.0.1', METER_GATEWAY_HTTP_PORT: '0', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stderr: result.stderr };
}

const STATIC = { ip: '192.168.1.10', netmask: '255.255.255.0', dns: '1.1.1.1' };
const scheduled = (schedule: string) => ({
  actions: [{ id: 'pump', schedule, requests: [{ http: { url: 'http://127.0.0.1:9/on' } }] }],
});

const CASES: Array<{
  name: string;
  file?: Record<string, unknown>;
  env?: Record<string, string>;
  key: RegExp;
}> = [
  {
    name: 'Ethernet static_ip without addresses',
    file: { eth: { static_ip: true } },
    key: /eth\.ip: required/,
  },
  {
    name: 'Wi-Fi gateway outside the subnet',
    file: { wifi: { sta: { static_ip: true, ...STATIC, gateway: '10.0.0.1' } } },
    key: /wifi\.sta\.gateway: must be another host address in the subnet/,
  },
  {
    name: 'Ethernet gateway outside the subnet (environment)',
    env: {
      METER_GATEWAY_ETH_STATIC_IP: 'true',
      METER_GATEWAY_ETH_IP: STATIC.ip,
      METER_GATEWAY_ETH_NETMASK: STATIC.netmask,
      METER_GATEWAY_ETH_DNS: STATIC.dns,
      METER_GATEWAY_ETH_GATEWAY: '10.0.0.1',
    },
    key: /environment: eth\.gateway: must be another host address/,
  },
  {
    name: 'a cron expression node-cron refuses (file)',
    file: { actions: { definition: scheduled('61 * * * *') } },
    key: /actions\.definition\.actions\[0\]\.schedule: is not a cron expression/,
  },
  {
    name: 'a cron expression node-cron refuses (environment)',
    env: { METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify(scheduled('61 * * * *')) },
    key: /environment: actions\.definition\.actions\[0\]\.schedule/,
  },
  {
    name: 'an MQTT URL with a foreign scheme (environment)',
    env: { METER_GATEWAY_MQTT_URL: 'javascript:alert(1)' },
    key: /environment: mqtt\.url: scheme must be mqtt:\/\/ or mqtts:\/\//,
  },
  {
    name: 'MQTT enabled without a URL (file)',
    file: { mqtt: { enable: true } },
    key: /mqtt\.url: is required when enable is true/,
  },
];

for (const item of CASES) {
  test(`start-up refuses ${item.name}: exit 1 naming the key`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'mg-config-checks-'));
    try {
      const args = ['--state-dir', join(dir, 'state')];
      if (item.file) {
        writeFileSync(join(dir, 'config.json'), JSON.stringify(item.file));
        args.push('--config', join(dir, 'config.json'));
      }
      const result = runDaemon(args, item.env ?? {});
      assert.equal(result.status, 1, result.stderr);
      assert.match(result.stderr, /configuration error/);
      assert.match(result.stderr, item.key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
