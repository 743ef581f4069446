import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * A pymodbus RTU server on one end of a pty pair serving an Eastron SDM630 map with known values
 * (input registers 30001..30384 as big-endian floats), the meter a Modbus source reads in tests.
 * Written by the test from the SDM630 V1.8 addresses, not from the project's profile code.
 */
const SERVER = `
import json, struct, sys
from pymodbus.server import StartSerialServer
from pymodbus.datastore import ModbusSequentialDataBlock, ModbusSlaveContext, ModbusServerContext
from pymodbus.transaction import ModbusRtuFramer
port, unit, floats = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
registers = [0] * 0x180
for address, value in floats.items():
    high, low = struct.unpack('>HH', struct.pack('>f', value))
    registers[int(address)] = high
    registers[int(address) + 1] = low
slave = ModbusSlaveContext(ir=ModbusSequentialDataBlock(0, registers), zero_mode=True)
context = ModbusServerContext(slaves={unit: slave}, single=False)
print('ready', flush=True)
StartSerialServer(context=context, framer=ModbusRtuFramer, port=port, baudrate=9600, bytesize=8, parity='N', stopbits=1)
`;

/** SDM630 V1.8 input registers (PDU addresses) and the values the test meter serves. */
export const SDM630_VALUES: Record<number, number> = {
  0x0000: 231.5, // V L1
  0x0002: 229.25, // V L2
  0x0004: 232, // V L3
  0x0006: 4.5, // A L1
  0x0008: 2.25, // A L2
  0x000a: 1.5, // A L3
  0x000c: 1000, // W L1
  0x000e: -250, // W L2
  0x0010: 300, // W L3
  0x0018: 120, // var L1
  0x0034: 1050, // W total
  0x0038: 1250, // VA total
  0x003c: 150, // var total
  0x003e: 0.95, // PF
  0x0046: 49.75, // Hz
  0x0048: 12345.5, // import kWh
  0x004a: 678.25, // export kWh
  0x004c: 12.5, // import kvarh
  0x004e: 3.75, // export kvarh
  0x015a: 4321.5, // L1 import kWh (30347)
  0x015c: 3210.25, // L2 import kWh (30349)
  0x015e: 2109.75, // L3 import kWh (30351)
  0x0160: 120.5, // L1 export kWh (30353)
  0x0162: 450.25, // L2 export kWh (30355)
  0x0164: 107.5, // L3 export kWh (30357)
};

export async function startPymodbusMeter(
  python: string,
  port: string,
  unit: number,
  values: Record<number, number> = SDM630_VALUES,
): Promise<ChildProcess> {
  const child = spawn(python, ['-c', SERVER, port, String(unit), JSON.stringify(values)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = once(child.stdout!, 'data');
  const exited = once(child, 'exit').then(() => {
    throw new Error(`pymodbus server exited: ${stderr}`);
  });
  await Promise.race([ready, exited]);
  return child;
}

export async function stopPymodbusMeter(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
