import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceStatus } from '../../src/context.js';
import { Daemon } from '../../src/daemon.js';
import { linesLogger } from '../helpers/log-lines.js';

/**
 * A whole daemon in the test's process for the runner tests of each output kind
 * (docs/architecture.md#output-contract): HTTP on a loopback port of its own, mDNS and the Shelly
 * UDP personality off unless a test switches them on, a simulator reading five times a second.
 */
export interface Running {
  daemon: Daemon;
  base: string;
  stateDir: string;
  /** The daemon's log lines at info and above. */
  lines: string[];
  services(): Record<string, ServiceStatus>;
  line(name: string): ServiceStatus | undefined;
  close(): Promise<void>;
}

export async function startDaemon(
  env: Record<string, string>,
  prepare?: (stateDir: string) => void,
): Promise<Running> {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-runner-'));
  const remove = () => rmSync(stateDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  prepare?.(stateDir);
  const lines: string[] = [];
  const daemon = Daemon.create({
    stateDir,
    env: {
      METER_GATEWAY_HTTP_HOST: '127.0.0.1',
      METER_GATEWAY_HTTP_PORT: '0',
      METER_GATEWAY_MODBUS_TCP_HOST: '127.0.0.1',
      METER_GATEWAY_SERVICES_BROADCAST: 'false',
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_UDP_PORTS: '',
      METER_GATEWAY_METER_SIMULATOR_INTERVAL: '0.2',
      ...env,
    },
    logger: linesLogger(lines, 'info'),
  });
  try {
    await daemon.start();
  } catch (error) {
    remove();
    throw error;
  }
  // The HTTP service's line carries the port it listens on.
  const http = daemon.context.services.get('http') as { port?: unknown };
  return {
    daemon,
    base: `http://127.0.0.1:${String(http.port)}`,
    stateDir,
    lines,
    services: () => daemon.context.services.snapshot(),
    line: (name) => daemon.context.services.get(name),
    async close() {
      await daemon.stop();
      remove();
    },
  };
}

/** What the tests read of a settings write's answer: the error body of a 500, the 202's view. */
export interface WriteAnswer {
  status: number;
  body: {
    error?: string;
    details?: { saved?: boolean; failed?: { output: string; message: string }[] };
    state?: string;
    outputs?: string[];
  };
}

/** A JSON write (`method` with `body` at `path` of `base`) and its answer. */
export async function sendJson(
  base: string,
  method: string,
  path: string,
  body: unknown,
): Promise<WriteAnswer> {
  const answer = await fetch(`${base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: answer.status, body: (await answer.json()) as WriteAnswer['body'] };
}

/** A JSON PUT of `body` at `path` of `base` (a settings merge) and its answer. */
export function putJson(base: string, path: string, body: unknown): Promise<WriteAnswer> {
  return sendJson(base, 'PUT', path, body);
}

/**
 * POST /api/v1/settings (replace) of the settings as GET shows them, with `edit` made to them, as
 * a client saves a form (POST replaces them all).
 */
export async function postEdited<Settings = Record<string, unknown>>(
  base: string,
  edit: (settings: Settings) => void,
): Promise<WriteAnswer> {
  const settings = (await (await fetch(`${base}/api/v1/settings`)).json()) as Settings;
  edit(settings);
  return sendJson(base, 'POST', '/api/v1/settings', settings);
}
