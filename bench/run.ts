// `npm run bench`: parse throughput per protocol beside the npm parsers, measured in one run.
// Ratios are meaningful within a run only (the machine is shared and noisy); absolute rates are not.
// The Modbus, HTTP and MQTT outputs are measured with the load-generator bench (see bench/modbus-bench.sh,
// bench/http-bench.sh and bench/mqtt-latency.ts, and the README's Performance section).
import { cpus, loadavg } from 'node:os';
import { formatD0Bench, runD0Bench } from './d0-parse.js';
import { formatDsmrBench, runDsmrBench } from './dsmr-parse.js';
import { formatSmlBench, runSmlBench } from './sml-parse.js';
import { runMetricsBench } from './metrics-scrape.js';

const [load1] = loadavg();
console.log(
  `meter-gateway parse benchmarks: node ${process.version}, ${cpus().length} CPUs, load average ${load1?.toFixed(2)}`,
);
console.log('\nDSMR P1 (beside npm dsmr-parser and smartmeter-obis)');
console.log(formatDsmrBench(await runDsmrBench()));
console.log('\nSML (beside npm smartmeter-obis)');
console.log(formatSmlBench(await runSmlBench()));
console.log('\nIEC 62056-21 / D0 (beside npm smartmeter-obis)');
console.log(formatD0Bench(await runD0Bench()));

console.log('\n/metrics scrape (collect + prom-client rendering)');
console.log(await runMetricsBench());

console.log('');
await import('./modbus-freshness.js');
