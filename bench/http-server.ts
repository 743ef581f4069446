/**
 * The gateway's HTTP API as a load target (wrk): real server, core routes, simulator meter with one
 * DSMR telegram per second. Prints `ready <port>` once the first reading is in and it listens.
 *
 *   node --import tsx bench/http-server.ts PORT [--password PW]
 *
 * --password turns system.protection on (Digest or Basic on every request).
 */
import { startBenchGateway } from './http-gateway.js';

const at = process.argv.indexOf('--password');
const gateway = await startBenchGateway({
  port: Number(process.argv[2] ?? 18090),
  feed: 'simulator',
  ...(at > 0 ? { password: process.argv[at + 1]! } : {}),
});
process.stdout.write(`ready ${gateway.port}\n`);

const stop = (): void => {
  void gateway.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
