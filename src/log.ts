import winston from 'winston';

export type Logger = winston.Logger;
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/**
 * sd-daemon(3) priority prefixes: journald reads `<N>` at the start of a line on a service's
 * stdout/stderr (SyslogLevelPrefix=yes, the default) as the syslog priority of that line, so
 * `journalctl -p warning` and the journal's colours show warnings and errors as such.
 */
const JOURNAL_PRIORITY: Record<string, string> = { error: '<3>', warn: '<4>', info: '<6>', debug: '<7>' };

/**
 * Console logging that suits journald: under systemd (JOURNAL_STREAM set) journald stamps every
 * line itself, so no timestamp and no colours but a priority prefix; on a terminal, a local timestamp.
 */
export function createLogger(level: LogLevel, env: NodeJS.ProcessEnv = process.env): Logger {
  const underJournald = env.JOURNAL_STREAM !== undefined;
  const line = winston.format.printf((info) => {
    const {
      level: lvl,
      message,
      timestamp,
      component,
      ...rest
    } = info as winston.Logform.TransformableInfo & {
      timestamp?: string;
      component?: string;
    };
    const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
    const where = component ? `[${component}] ` : '';
    const priority = underJournald ? (JOURNAL_PRIORITY[lvl] ?? '') : '';
    return `${priority}${timestamp ? `${timestamp} ` : ''}${lvl}: ${where}${String(message)}${extra}`;
  });
  const format = underJournald
    ? winston.format.combine(line)
    : winston.format.combine(winston.format.timestamp({ format: 'YYYY-MM-DD HH:mm:ss' }), line);
  return winston.createLogger({
    level,
    format,
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
  });
}

/** A logger whose lines name the component ("[modbus] ..."). */
export function componentLogger(logger: Logger, component: string): Logger {
  return logger.child({ component });
}

/**
 * Waits until every transport has written what it buffered (winston must be flushed before the
 * process exits, or the last lines, often the reason for the exit, are lost). The logger's own
 * 'finish' comes before its transports are done, so each transport's 'finish' is awaited.
 */
export async function flushLogger(logger: Logger, timeoutMs = 2000): Promise<void> {
  const transportsDone = Promise.all(
    logger.transports.map(
      (transport) => new Promise<void>((resolve) => transport.once('finish', () => resolve())),
    ),
  );
  logger.end();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([transportsDone, deadline]);
  clearTimeout(timer);
}
