import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { createModbusRtuService, type ModbusRtuService } from '../../src/modbus/rtu-service.js';
import { sealFrame } from '../../src/modbus-protocol/rtu-frame.js';
import { runOutput } from '../../src/output-runner.js';
import { hasCommand } from '../helpers/environment.js';
import { waitFor } from '../helpers/wait.js';
import { SocatPty } from '../meter/transport/socat-pty.js';
import { makeContext, syntheticReading, type TestContext as ModbusTestContext } from './fixtures.js';

/**
 * The RTU slave over a socat pseudo-terminal pair, as an inverter on an RS485 bus sees it, and the
 * clients that read it there: mbpoll in RTU mode, pymodbus's serial client, raw frames.
 */

export const UNIT = 3;
export const PYTHON = '/usr/bin/python3';

export interface Rig extends ModbusTestContext {
  pty: SocatPty;
  service: ModbusRtuService;
}

export async function startRig(t: TestContext, env: Record<string, string> = {}): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'mg-rtu-'));
  const pty = new SocatPty(dir);
  await pty.start();
  const test = makeContext({
    env: {
      METER_GATEWAY_SERVICES_MODBUS_RTU_ENABLE: 'true',
      METER_GATEWAY_SERVICES_MODBUS_RTU_DEVICE: pty.hostPath,
      METER_GATEWAY_SERVICES_MODBUS_RTU_UNIT_ID: String(UNIT),
      METER_GATEWAY_SERVICES_MODBUS_RTU_PARITY: 'none',
      ...env,
    },
  });
  const service = createModbusRtuService(test.ctx);
  const running = runOutput(test.ctx, service);
  await running.start();
  t.after(async () => {
    await running.stop();
    await pty.stop();
    test.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  assert.equal(test.ctx.services.get('modbus_rtu')?.state, 'running');
  test.ctx.store.ingest(syntheticReading());
  return { ...test, pty, service };
}

export function mbpollRtu(
  path: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'mbpoll',
      ['-m', 'rtu', '-a', String(UNIT), '-b', '9600', '-P', 'none', '-1', '-o', '2', ...args, path],
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The inverter's end of the pty: raw frames out, whatever comes back collected. */
export async function openBus(
  path: string,
): Promise<{ port: SerialPort; heard: () => Buffer; clear: () => void }> {
  const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(error) : resolve())));
  let heard: Buffer[] = [];
  port.on('data', (chunk: Buffer) => heard.push(chunk));
  return { port, heard: () => Buffer.concat(heard), clear: () => (heard = []) };
}

export function request(unit: number, functionCode: number, start: number, quantity: number): Buffer {
  const frame = Buffer.alloc(8);
  frame[0] = unit;
  frame[1] = functionCode;
  frame.writeUInt16BE(start, 2);
  frame.writeUInt16BE(quantity, 4);
  return sealFrame(frame);
}

export async function waitForBytes(heard: () => Buffer, count: number): Promise<Buffer> {
  return waitFor(`${count} bytes on the bus`, heard, (bytes) => bytes.length >= count, { intervalMs: 10 });
}

/** Waits until the slave has counted `value` of `counter` (each frame judged before the next is sent). */
export function waitForCounter(service: ModbusRtuService, counter: 'badFrames' | 'otherUnit', value: number) {
  return waitFor(
    `${counter} to reach ${value}`,
    () => service.counters[counter],
    (seen) => seen >= value,
  );
}

const PYMODBUS_READ = `
import struct, sys
from pymodbus.client import ModbusSerialClient
port, unit, function, address, count, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
client = ModbusSerialClient(port=port, baudrate=9600, parity='N', stopbits=1, bytesize=8, timeout=2)
if not client.connect():
    sys.exit('cannot open ' + port)
read = client.read_input_registers if function == 'input' else client.read_holding_registers
result = read(address, count, slave=unit)
client.close()
if result.isError():
    print('exception', getattr(result, 'exception_code', result))
    sys.exit(0)
raw = b''.join(struct.pack('>H', r) for r in result.registers)
values = struct.unpack('>%df' % (count // 2), raw) if kind == 'float' else struct.unpack('>%dh' % count, raw)
print(' '.join(repr(v) for v in values))
`;

export function hasPymodbus(): Promise<boolean> {
  if (!hasCommand(PYTHON)) return Promise.resolve(false);
  return new Promise((resolve) =>
    execFile(PYTHON, ['-c', 'import pymodbus.client'], (error) => resolve(!error)),
  );
}

export function pymodbus(
  path: string,
  table: string,
  address: number,
  count: number,
  kind: 'float' | 'int16' = 'float',
): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      PYTHON,
      ['-c', PYMODBUS_READ, path, String(UNIT), table, String(address), String(count), kind],
      { timeout: 15_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout.trim()),
    ),
  );
}
