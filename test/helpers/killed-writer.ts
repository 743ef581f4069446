import { spawn } from 'node:child_process';
import { testModuleCommand } from './environment.js';

/**
 * When the writer is killed: `delayMs` after its first report, or as soon as it has reported
 * `reports` writes (it goes on writing while the report travels, so the kill still lands at an
 * arbitrary point of a write; the number of writes per round no longer depends on how fast the
 * disk syncs under load).
 */
export type KillPoint = number | { reports: number };

/**
 * Runs a writer child (a test module that reports each completed write as a number on its own
 * line, counting up from `start`) with `args` and `start`, and SIGKILLs it at `kill`, so every
 * round is killed mid-stream. Resolves with the last reported number (`start - 1` when none).
 */
export function killWriterAfter(
  module: string,
  args: readonly string[],
  start: number,
  kill: KillPoint,
): Promise<number> {
  const { command, args: base } = testModuleCommand(module);
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...base, ...args, String(start)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (typeof kill === 'number') timer ??= setTimeout(() => child.kill('SIGKILL'), kill);
      else if (output.split('\n').length - 1 >= kill.reports) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', () => {
      if (timer) clearTimeout(timer);
      const reports = output.trim().split('\n').filter(Boolean).map(Number);
      resolve(reports.length > 0 ? reports[reports.length - 1]! : start - 1);
    });
  });
}
