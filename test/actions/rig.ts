import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { componentLogger } from '../../src/log.js';
import { registerActionsRoutes } from '../../src/http/routes/actions.js';
import { runOutput } from '../../src/output-runner.js';
import type { Service } from '../../src/service.js';
import { startHttpContext, type HttpContextOptions, type HttpTestContext } from '../helpers/http-context.js';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';

/** The actions endpoints and the actions output over a real HTTP server and config store. */
export interface ActionsRig extends HttpTestContext {
  actions: ActionsOutput;
  post(definition: unknown): Promise<Response>;
  /** Calls an action and waits until its status record has a final code. */
  callAndWait(id: string): Promise<{ code: number; exe_time: number; action_id: string; id: number }>;
}

export async function startActionsRig(options: HttpContextOptions = {}): Promise<ActionsRig> {
  let actions: ActionsOutput | undefined;
  const http = await startHttpContext({
    ...options,
    routes: (router, ctx) => {
      actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      registerActionsRoutes(router, ctx, actions);
    },
  });
  const output: Service = runOutput(http.ctx, actions!);
  await output.start();
  const post = (definition: unknown) =>
    fetch(`${http.baseUrl}/api/v1/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(definition),
    });
  return {
    ...http,
    actions: actions!,
    post,
    async callAndWait(id) {
      const answer = await fetch(`${http.baseUrl}/api/v1/actions/call?id=${id}`, { method: 'POST' });
      if (answer.status !== 202) throw new Error(`call ${id}: ${answer.status} ${await answer.text()}`);
      const location = answer.headers.get('location')!;
      return waitFor(
        `the status of action ${id}`,
        async () =>
          (
            (await (await fetch(`${http.baseUrl}${location}`)).json()) as Array<{
              code: number;
              exe_time: number;
              action_id: string;
              id: number;
            }>
          )[0]!,
        (record) => record.code !== -1,
      );
    },
    async close() {
      await output.stop();
      await http.close();
    },
  };
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A node:http server that records each request and answers `status` (or never, when `silent`). */
export async function recordingServer(
  status = 200,
  silent = false,
): Promise<{ server: Server; url: string; requests: RecordedRequest[]; close(): Promise<void> }> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      if (!silent) response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

export const PYTHON = '/usr/bin/python3';

export function hasPymodbus(): Promise<boolean> {
  return new Promise((resolve) =>
    execFile(PYTHON, ['-c', 'import pymodbus.client, pymodbus.server'], (error) => resolve(!error)),
  );
}

/** A port that was free a moment ago (pymodbus needs a number, not 0). */
export { freePort };

const SLAVE = `
import sys
from pymodbus.server import StartTcpServer
from pymodbus.datastore import ModbusSequentialDataBlock, ModbusSlaveContext, ModbusServerContext
port = int(sys.argv[1])
slave = ModbusSlaveContext(co=ModbusSequentialDataBlock(0, [0] * 400), hr=ModbusSequentialDataBlock(0, [0] * 400), zero_mode=True)
context = ModbusServerContext(slaves={1: slave}, single=False)
print('ready', flush=True)
StartTcpServer(context=context, address=('127.0.0.1', port))
`;

/** pymodbus's TCP server with 400 coils and 400 holding registers (unit 1, zero-based addresses). */
export async function startModbusSlave(): Promise<{
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}> {
  const port = await freePort();
  const child = spawn(PYTHON, ['-c', SLAVE, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await Promise.race([
    once(child.stdout!, 'data'),
    once(child, 'exit').then(() => {
      throw new Error(`pymodbus server exited: ${stderr}`);
    }),
  ]);
  // The socket is bound a moment after the print: wait until a client gets through.
  await waitFor('the pymodbus TCP server', () =>
    readBack(port, 'hr', 0, 1).then(
      () => true,
      () => false,
    ),
  );
  return {
    port,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const READ = `
import json, sys
from pymodbus.client import ModbusTcpClient
port, kind, address, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
client = ModbusTcpClient('127.0.0.1', port=port)
if not client.connect():
    sys.exit(2)
if kind == 'hr':
    answer = client.read_holding_registers(address, count, slave=1)
    print(json.dumps(answer.registers))
else:
    answer = client.read_coils(address, count, slave=1)
    print(json.dumps([bool(bit) for bit in answer.bits[:count]]))
client.close()
`;

/** Reads holding registers or coils back with pymodbus's client. */
export function readBack(port: number, kind: 'hr', address: number, count: number): Promise<number[]>;
export function readBack(port: number, kind: 'co', address: number, count: number): Promise<boolean[]>;
export function readBack(
  port: number,
  kind: 'hr' | 'co',
  address: number,
  count: number,
): Promise<unknown[]> {
  return new Promise((resolve, reject) =>
    execFile(PYTHON, ['-c', READ, String(port), kind, String(address), String(count)], (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout) as unknown[]),
    ),
  );
}
