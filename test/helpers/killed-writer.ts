import { spawn } from 'node:child_process';
import { testModuleCommand } from './environment.js';

/**
 * Runs a writer child (a test module that reports each completed write as a number on its own
 * line, counting up from `start`) with `args` and `start`, and SIGKILLs it `delayMs` after its
 * first report, so every round is killed mid-stream. Resolves with the last reported number
 * (`start - 1` when none).
 */
export function killWriterAfter(
  module: string,
  args: readonly string[],
  start: number,
  delayMs: number,
): Promise<number> {
  const { command, args: base } = testModuleCommand(module);
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...base, ...args, String(start)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      timer ??= setTimeout(() => child.kill('SIGKILL'), delayMs);
    });
    child.on('error', reject);
    child.on('exit', () => {
      if (timer) clearTimeout(timer);
      const reports = output.trim().split('\n').filter(Boolean).map(Number);
      resolve(reports.length > 0 ? reports[reports.length - 1]! : start - 1);
    });
  });
}
