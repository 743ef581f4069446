/**
 * Export limiter cost (docs/architecture.md#export-limiter): CPU per control step and heap per
 * inverter, on the test rig (test/export-limiter/rig.ts): one simulated SunSpec inverter on a
 * loopback Modbus TCP port, a house at 800 W, PV 3000 W, meter every second, 10 minutes of virtual
 * time. Every step reads the inverter (one FC3 transaction) and writes when needed.
 *
 * CPU is process CPU time over the run divided by the control steps (one per meter reading plus
 * one per 1 s tick): an upper bound, since the simulated inverter, its server socket and the
 * virtual clock run in the same process. Heap is the growth of the V8 heap after a forced garbage
 * collection from before the rig started (after a first rig loaded the modules) to the end of the run (run with `node --expose-gc`; without
 * it the number is not printed), again with the simulated inverter counted in.
 *
 * Run: `node --expose-gc dist/bench/export-limiter.js [profile]` after `npm run build`; profile is
 * sunspec (default), solaredge, huawei or victron_ess (the simulated inverter then serves that
 * vendor's map).
 */
import { startRig } from '../test/export-limiter/rig.js';
import type { Vendor } from '../test/helpers/simulated-inverter.js';

const VENDORS: Record<string, Vendor> = {
  sunspec: 'sunspec',
  solaredge: 'solaredge',
  huawei: 'huawei',
  victron_ess: 'victron',
};
const profile = process.argv[2] ?? 'sunspec';
const vendor = VENDORS[profile];
if (!vendor) throw new Error(`profile must be one of ${Object.keys(VENDORS).join(', ')}`);

const gc = (globalThis as { gc?: () => void }).gc;
const VIRTUAL_MS = 600_000;

// A first rig loads every module (modbus-serial, the config schema); the heap is measured after it.
const warm = await startRig({ load: () => 800, profile, inverter: { vendor, load: () => 800 } });
await warm.run(5000);
await warm.close();
gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const rig = await startRig({
  load: () => 800,
  profile,
  inverter: { deadTimeMs: 5000, pv: () => 3000, vendor, load: () => 800 },
});
await rig.run(60_000);
const steps0 = rig.inverter.connections;
const cpu0 = process.cpuUsage();
const real0 = performance.now();
await rig.run(VIRTUAL_MS);
const cpu = process.cpuUsage(cpu0);
const realMs = performance.now() - real0;
const steps = (VIRTUAL_MS / 1000) * 2;
gc?.();
const heapAfter = process.memoryUsage().heapUsed;
const status = rig.limiter!.status();

const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(
  `export limiter (${profile}), ${VIRTUAL_MS / 60_000} virtual minutes, ${steps} control steps (${status.inverters[0]!.writes} writes)`,
);
console.log(
  `  CPU per control step: ${((cpuMs / steps) * 1000).toFixed(0)} µs (upper bound, simulated inverter included)`,
);
console.log(`  wall time: ${realMs.toFixed(0)} ms; reconnects: ${rig.inverter.connections - steps0}`);
if (gc)
  console.log(
    `  heap held by a live rig with one inverter after 11 minutes (context, stores, limiter, link, simulated inverter): ${((heapAfter - heapBefore) / 1024).toFixed(0)} kB (bound: 1024 kB)`,
  );
else console.log('  heap: run with node --expose-gc');
await rig.close();
