/**
 * Every contract of the API in one module, for the HTTP layer's lazy load (src/http/contract-ref.ts):
 * the schemas and TypeBox are loaded when the OpenAPI document is asked or a body is checked, never
 * at start-up (docs/architecture.md#api-contracts).
 */
export * from './actions.js';
export * from './error.js';
export * from './history.js';
export * from './message.js';
export * from './meters.js';
export * from './modbus-table.js';
export * from './network.js';
export * from './page.js';
export * from './peak.js';
export * from './prices.js';
export * from './probe.js';
export * from './reading.js';
export * from './sdcard.js';
export * from './settings.js';
export * from './status.js';
export * from './system.js';
export * from './push.js';
export * from './export-limiter.js';
export * from './outputs.js';
