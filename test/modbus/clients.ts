import { once } from 'node:events';
import { connect } from 'node:net';
import { execFile } from 'node:child_process';
import ModbusSerial from 'modbus-serial';
import type { NumericType, WordOrder } from '../../src/modbus/layout.js';
import { createModbusService, type ModbusService } from '../../src/modbus/service.js';
import { freePort, makeContext, modbusEnv, type ContextOptions, type TestContext } from './fixtures.js';
import { runOutput } from '../../src/output-runner.js';

/** modbus-serial is CommonJS; under NodeNext its class is the default import's `default` (index.js sets both). */
const ModbusRTU = ModbusSerial.default;
export type ModbusClient = InstanceType<typeof ModbusRTU>;

/** A running Modbus service on a loopback port over a fresh context. */
export interface RunningSlave extends TestContext {
  service: ModbusService;
  port: number;
  stop(): Promise<void>;
}

export async function startSlave(
  options: ContextOptions & { now?: () => number } = {},
): Promise<RunningSlave> {
  const port = await freePort();
  const test = makeContext({ ...options, env: { ...modbusEnv(port), ...options.env } });
  if (options.now) test.ctx.now = options.now;
  const service = createModbusService(test.ctx, { host: '127.0.0.1' });
  const running = runOutput(test.ctx, service);
  await running.start();
  return {
    ...test,
    service,
    port,
    async stop() {
      await running.stop();
      test.cleanup();
    },
  };
}

export async function connectClient(port: number, unit = 1): Promise<ModbusClient> {
  const client = new ModbusRTU();
  await client.connectTCP('127.0.0.1', { port });
  client.setID(unit);
  client.setTimeout(3000);
  return client;
}

export async function closeClient(client: ModbusClient): Promise<void> {
  await new Promise<void>((resolve) => client.close(() => resolve()));
}

/** Reads `count` input registers from `start` in requests of at most 125 (FC 04 limit). */
export async function readWords(client: ModbusClient, start: number, count: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let address = start; address < start + count; address += 125) {
    const { buffer } = await client.readInputRegisters(address, Math.min(125, start + count - address));
    parts.push(buffer);
  }
  return Buffer.concat(parts);
}

const WORDS: Record<NumericType, number> = { short: 1, int: 2, float: 2, long: 4, double: 4 };

/** Decodes a register of the given type as a client does: words in set order, bytes big-endian. */
export function decodeRegister(
  bytes: Buffer,
  wordOffset: number,
  type: NumericType,
  order: WordOrder,
): number {
  const words: Buffer[] = [];
  for (let i = 0; i < WORDS[type]; i++)
    words.push(bytes.subarray((wordOffset + i) * 2, (wordOffset + i + 1) * 2));
  const value = Buffer.concat(order === 'lsw' ? words.reverse() : words);
  if (type === 'short') return value.readInt16BE(0);
  if (type === 'int') return value.readInt32BE(0);
  if (type === 'float') return value.readFloatBE(0);
  if (type === 'long') return Number(value.readBigInt64BE(0));
  return value.readDoubleBE(0);
}

/** Runs mbpoll once; resolves with exit code, stdout and stderr (never rejects on exit status). */
export function mbpoll(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('mbpoll', ['-m', 'tcp', '-1', '-o', '2', ...args], (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** mbpoll prints one `[reference]: <tab>value` line per value. */
export function mbpollValues(stdout: string): Map<number, number> {
  const values = new Map<number, number>();
  for (const match of stdout.matchAll(/^\[(\d+)\]:\s+(\S+)$/gm))
    values.set(Number(match[1]), Number(match[2]));
  return values;
}

/** Whether a TCP connection to host:port is accepted. */
export async function accepts(host: string, port: number): Promise<boolean> {
  const socket = connect({ host, port });
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}
