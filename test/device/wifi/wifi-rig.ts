import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWifiBackend } from '../../../src/device/wifi/backend.js';
import type { WifiBackend } from '../../../src/device/wifi/wifi-backend.js';
import { createNetworkOutput, type NetworkFacts } from '../../../src/device/network/network-output.js';
import type { AppContext } from '../../../src/context.js';
import { registerWifiRoutes } from '../../../src/http/routes/wifi.js';
import { runOutput } from '../../../src/output-runner.js';
import type { Service } from '../../../src/service.js';
import { startHttpContext, type HttpTestContext } from '../../helpers/http-context.js';
import { waitFor } from '../../helpers/wait.js';
import { createFakeNmcli, hexOf, terse, type FakeNmcli } from './fake-nmcli.js';

/** The HTTP API with the Wi-Fi routes on a real server, a fake nmcli on PATH and a fake sysfs tree. */
export const SCAN_FIELDS = 'BSSID,SSID-HEX,SSID,CHAN,SIGNAL,SECURITY,WPA-FLAGS,RSN-FLAGS';
export const DEVICES = ['-t', '-f', 'DEVICE,TYPE,STATE,CONNECTION', 'device', 'status'];

export interface Rig {
  http: HttpTestContext;
  nmcli: FakeNmcli;
  backend: WifiBackend;
  sysDir: string;
  /** The network output, which applies what the routes store (started unless asked not to). */
  network: Service;
}

export async function startRig(withNmcli = true, withNetwork = true): Promise<Rig> {
  const nmcli = createFakeNmcli();
  const sysDir = mkdtempSync(join(tmpdir(), 'sys-class-net-'));
  let backend: WifiBackend | undefined;
  const http = await startHttpContext({
    routes: (router, ctx) => {
      backend = createWifiBackend(ctx, { pathEnv: withNmcli ? nmcli.dir : sysDir, sysClassNet: sysDir });
      registerWifiRoutes(router, ctx, backend);
    },
  });
  const network = runOutput(http.ctx, createNetworkOutput(http.ctx, backend!));
  const rig = { http, nmcli, backend: backend!, sysDir, network };
  if (withNetwork) await startNetwork(rig);
  return rig;
}

/**
 * Starts the network output (its start-up sync and first link-facts refresh run against the fake
 * nmcli), then forgets the calls they made, so a test sees only what its own writes cause.
 */
export async function startNetwork(rig: Pick<Rig, 'network' | 'backend' | 'nmcli' | 'http'>): Promise<void> {
  await rig.network.start();
  await waitFor(
    'the first link facts',
    () => linkOf(rig.http.ctx, 'wifi'),
    (s) => s !== undefined && ('info' in s || 'info_error' in s),
  );
  await rig.backend.settle();
  rig.nmcli.clearCalls();
}

/** A link as the network output's line shows it: the backend's report (`link`, `error`) and, for Wi-Fi, the link facts. */
export function linkOf<Kind extends 'wifi' | 'ethernet'>(
  ctx: AppContext,
  kind: Kind,
): NetworkFacts[Kind] | undefined {
  return ctx.services.get('network')?.[kind] as NetworkFacts[Kind] | undefined;
}

export async function stopRig(rig: Rig): Promise<void> {
  await rig.network.stop();
  await rig.backend.settle();
  await rig.http.close();
  rig.nmcli.remove();
  rmSync(rig.sysDir, { recursive: true, force: true });
}

export function scanLine(
  bssid: string,
  ssid: string,
  chan: number,
  signal: number,
  security = 'WPA2',
  bandwidth?: string,
): string {
  const fields = [
    bssid,
    hexOf(ssid),
    ssid,
    String(chan),
    String(signal),
    security,
    '(none)',
    'pair_ccmp group_ccmp psk',
  ];
  return terse(...fields, ...(bandwidth ? [bandwidth] : []));
}

export async function send(
  rig: Rig,
  method: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${rig.http.baseUrl}/api/v1/wifi/sta/settings`, {
    method,
    ...(body !== undefined
      ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
}

export function fakeInterface(
  sysDir: string,
  name: string,
  files: Record<string, string>,
  dirs: string[] = [],
): void {
  mkdirSync(join(sysDir, name), { recursive: true });
  for (const [file, content] of Object.entries(files))
    writeFileSync(join(sysDir, name, file), `${content}\n`);
  for (const dir of dirs) mkdirSync(join(sysDir, name, dir));
}
