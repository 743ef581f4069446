import { execFile } from 'node:child_process';

/**
 * nmcli exit codes (nmcli(1) "EXIT STATUS"): 2 invalid user input or wrong invocation, 4 activation
 * failed, 8 NetworkManager not running, 10 connection, device or access point does not exist.
 */
export const NMCLI_EXIT = { INVALID_INPUT: 2, ACTIVATION_FAILED: 4, NOT_RUNNING: 8, NOT_FOUND: 10 } as const;

/** A failed nmcli run: its exit code (undefined when it did not start or was killed) and stderr. */
export class NmcliError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | undefined,
    readonly stderr: string,
  ) {
    super(
      `nmcli ${describeArgs(args)} failed${exitCode !== undefined ? ` (exit ${exitCode})` : ''}: ${stderr.trim()}`,
    );
    this.name = 'NmcliError';
  }
}

/** Argument list for messages, with the value after any *.psk / password argument masked. */
function describeArgs(args: readonly string[]): string {
  return args
    .map((arg, index) => (index > 0 && /psk|password/i.test(args[index - 1]!) ? '***' : arg))
    .join(' ');
}

export interface NmcliRunner {
  (args: readonly string[]): Promise<string>;
}

/** Runs nmcli where "does not exist" (exit 10) is no failure: a delete or a disconnect. */
export async function runUnlessMissing(run: NmcliRunner, args: readonly string[]): Promise<void> {
  try {
    await run(args);
  } catch (error) {
    if (!(error instanceof NmcliError && error.exitCode === NMCLI_EXIT.NOT_FOUND)) throw error;
  }
}

/**
 * Runs nmcli with execFile (no shell: SSIDs and passwords are single argv elements) in a UTF-8 C
 * locale, so terse values are untranslated and SSIDs keep their characters.
 */
export function createNmcliRunner(command = 'nmcli', timeoutMs = 60_000): NmcliRunner {
  return (args) =>
    new Promise((resolve, reject) => {
      execFile(
        command,
        [...args],
        {
          encoding: 'utf8',
          timeout: timeoutMs,
          maxBuffer: 4 * 1024 * 1024,
          env: { ...process.env, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' },
        },
        (error, stdout, stderr) => {
          if (!error) {
            resolve(stdout);
            return;
          }
          const code = typeof error.code === 'number' ? error.code : undefined;
          reject(new NmcliError(args, code, stderr || error.message));
        },
      );
    });
}
