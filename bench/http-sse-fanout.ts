/**
 * SSE fan-out benchmark: delivery latency of `event: live` from the moment a reading enters the
 * store to its arrival at each of N clients.
 *
 *   node --import tsx bench/http-sse-fanout.ts [--clients 200] [--events 300] [--interval-ms 50] [--procs 4]
 *
 * Three roles, all in this file, in separate processes so that neither side's event loop delays
 * the other: the gateway (real server and live hub, readings ingested on command), and `procs`
 * client processes with clients/procs SSE connections each. Times are process.hrtime (the
 * system-wide monotonic clock on Linux), so the gateway's ingest time and the clients' receive
 * times are comparable. Each reading carries its sequence number in 1.8.1 (live key E_In_T1).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { sequencedReading, startBenchGateway } from './http-gateway.js';

type Message =
  | { type: 'ready'; port: number }
  | { type: 'emit'; count: number; intervalMs: number }
  | { type: 'emitted'; times: number[] }
  | { type: 'connect'; port: number; count: number }
  | { type: 'connected' }
  | { type: 'collect' }
  | { type: 'received'; deliveries: number[] }
  | { type: 'stop' };

const send = (message: Message): void => void process.send!(message);
const now = (): number => Number(process.hrtime.bigint());

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
}

async function gatewayRole(maxClients: number): Promise<void> {
  const gateway = await startBenchGateway({ port: 0, feed: 'manual', liveMaxClients: maxClients });
  process.on('message', (message: Message) => {
    if (message.type === 'emit') {
      void (async () => {
        const times: number[] = [];
        for (let sequence = 1; sequence <= message.count; sequence++) {
          times.push(now());
          gateway.ctx.store.ingest(sequencedReading(sequence, Date.now()));
          await sleep(message.intervalMs);
        }
        send({ type: 'emitted', times });
      })();
    } else if (message.type === 'stop') void gateway.close().then(() => process.exit(0));
  });
  send({ type: 'ready', port: gateway.port });
}

/** Client role: `count` SSE connections; records [sequence, receive time] of every live event. */
function clientRole(): void {
  const deliveries: number[] = [];
  process.on('message', (message: Message) => {
    if (message.type === 'connect') {
      let open = 0;
      for (let i = 0; i < message.count; i++) {
        get({ host: '127.0.0.1', port: message.port, path: '/api/v1/live', agent: false }, (response) => {
          if (response.statusCode !== 200) throw new Error(`live answered ${response.statusCode}`);
          if (++open === message.count) send({ type: 'connected' });
          let buffer = '';
          response.setEncoding('utf8');
          response.on('data', (text: string) => {
            const at = now();
            buffer += text;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              // The sequence number only (a full JSON.parse per client would be the client's cost).
              const sequence = /"E_In_T1":(\d+)/.exec(block);
              if (block.startsWith('event: live') && sequence) deliveries.push(Number(sequence[1]), at);
            }
          });
        });
      }
    } else if (message.type === 'collect') send({ type: 'received', deliveries });
    else if (message.type === 'stop') process.exit(0);
  });
}

function next<T extends Message['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<Message, { type: T }>> {
  return new Promise((resolve) => {
    const listener = (message: Message): void => {
      if (message.type !== type) return;
      child.off('message', listener);
      resolve(message as Extract<Message, { type: T }>);
    };
    child.on('message', listener);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const clients = option('--clients', 200);
  const events = option('--events', 300);
  const intervalMs = option('--interval-ms', 50);
  const procs = option('--procs', 4);
  const self = fileURLToPath(import.meta.url);
  const gateway = fork(self, ['gateway', String(clients + 10)]);
  const { port } = await next(gateway, 'ready');
  const workers = Array.from({ length: procs }, () => fork(self, ['clients']));
  const shares = workers.map((_, i) => Math.floor(clients / procs) + (i < clients % procs ? 1 : 0));
  workers.forEach((worker, i) => worker.send({ type: 'connect', port, count: shares[i]! } satisfies Message));
  await Promise.all(workers.map((worker) => next(worker, 'connected')));
  gateway.send({ type: 'emit', count: events, intervalMs } satisfies Message);
  const { times } = await next(gateway, 'emitted');
  await sleep(500);
  const latencies: number[] = [];
  for (const worker of workers) {
    worker.send({ type: 'collect' } satisfies Message);
    const { deliveries } = await next(worker, 'received');
    for (let i = 0; i < deliveries.length; i += 2)
      latencies.push((deliveries[i + 1]! - times[deliveries[i]! - 1]!) / 1000);
  }
  for (const child of [gateway, ...workers]) child.send({ type: 'stop' } satisfies Message);
  await Promise.all([gateway, ...workers].map((child) => once(child, 'exit')));
  latencies.sort((a, b) => a - b);
  const expected = clients * events;
  console.log(
    `sse-fanout: clients=${clients} events=${events} interval=${intervalMs}ms deliveries=${latencies.length}/${expected} ` +
      `p50=${percentile(latencies, 50).toFixed(1)} us p99=${percentile(latencies, 99).toFixed(1)} us ` +
      `max=${latencies[latencies.length - 1]!.toFixed(1)} us`,
  );
  if (latencies.length !== expected) process.exitCode = 1;
}

const role = process.argv[2];
if (role === 'gateway') await gatewayRole(Number(process.argv[3]));
else if (role === 'clients') clientRole();
else await main();
