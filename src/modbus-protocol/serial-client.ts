import { EventEmitter } from 'node:events';

/**
 * A new modbus-serial client (its ModbusRTU class, the Modbus master of TCP and RTU), the library
 * loaded on first use so that only a configured Modbus source, action or inverter loads it.
 * The class extends Node's EventEmitter (index.js: `class ModbusRTU extends EventEmitter`), which
 * its typings (ModbusRTU.d.ts, modbus-serial 8.0) leave out: they declare `on('close')` and
 * `on('error')` but no `removeAllListeners`, which closing a client needs (client-close.ts). The
 * instanceof check makes the base a fact the compiler knows, so the client is the library's class
 * and an EventEmitter, with every signature the library declares.
 */
export async function newSerialClient() {
  const module = await import('modbus-serial');
  // CommonJS: under NodeNext the class is the default export's `default` (index.js sets both).
  const client = new module.default.default();
  if (!(client instanceof EventEmitter)) throw new Error('modbus-serial: the client is no EventEmitter');
  return client;
}
