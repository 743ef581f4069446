// A process that logs a burst into services.log and then receives SIGTERM, handled the way the
// daemon's main handles it (flush the log, then exit). Argument: the log file's path.
import { createLogger, flushLogger } from '../src/log.js';
import { servicesLogTransport } from '../src/log-transports.js';

const [path] = process.argv.slice(2);
const logger = createLogger('info', {});
logger.addTransport(servicesLogTransport(path!));
process.once('SIGTERM', () => {
  void flushLogger(logger, 30_000).then(() => process.exit(0));
});
for (let i = 0; i < 5000; i++) logger.info(`line ${i} ${'x'.repeat(100)}`);
logger.child({ component: 'main' }).error('last words');
process.kill(process.pid, 'SIGTERM');
