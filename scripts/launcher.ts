/**
 * meter-gateway launcher: starts the release `current` points to and rolls back to `previous` when a
 * new release never reports READY. Standalone (Node built-ins only): it is installed once as
 * <root>/launcher.mjs beside releases/ and does not change with updates, so a broken release cannot
 * break it. Layout and the READY file: src/device/update/release-layout.ts and ready-file.ts;
 * unit and install steps: systemd/README.md.
 *
 *   node launcher.mjs [--launcher-root DIR] [--launcher-ready-timeout SEC] <app arguments>
 *
 * Every other argument goes to the app; `--state-dir DIR` is also where the READY file is watched.
 * A release is on probation until it reports READY once (<root>/confirmed names the last one that
 * did). On probation, an exit before READY or no READY within the timeout switches `current` back
 * to `previous` (atomic rename of a temporary link), records the id in <root>/failed and starts the
 * previous release. Under systemd the app's own sd_notify messages go to systemd (NotifyAccess=all),
 * so the unit becomes active only when a release that works is up. When the app exits with 0 (a
 * requested restart), the launcher exits with 0 under systemd (Restart=always) and starts `current`
 * again itself otherwise, so an update comes up on its new version either way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface LauncherOptions {
  root: string;
  readyTimeoutMs: number;
  appArgs: string[];
  stateDir: string | undefined;
}

interface Release {
  /** Link target as written, e.g. releases/1.2.0-0123456789ab */
  target: string;
  id: string;
  dir: string;
  entry: string;
}

type Outcome = { kind: 'exited'; code: number } | { kind: 'failed-before-ready'; why: string };

/**
 * Exit statuses that say the host or the configuration is wrong, not the release (sysexits(3)):
 * EX_CONFIG (78: the HTTP port is taken or not allowed) and EX_TEMPFAIL (75: another daemon holds
 * the state folder). The previous release would fail the same way, so an exit with one of them
 * before READY never rolls back: it is passed on to systemd as it is.
 */
const NOT_THE_RELEASE = new Set([75, 78]);

const CURRENT = 'current';
const POLL_MS = 200;
const KILL_GRACE_MS = 10_000;
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** sysexits(3) EX_CONFIG: nothing to start; the unit's RestartPreventExitStatus stops retries. */
const EXIT_NO_RELEASE = 78;

/**
 * Node arguments of the app process (`npm run bench:rss` measures the app started with these;
 * `npm start` and the container's entrypoint give the same):
 * - source maps turn stack traces in the journal into TypeScript lines, for about 1 MB resident;
 * - V8's young generation is capped at 4 MB per semi-space (default 16 MB on 64-bit): with every
 *   output on, a grown young generation held about 15 MB more resident memory in half of the
 *   runs; the cap keeps it steady, and the Modbus slave's CPU per request stayed within noise
 *   (docs/architecture.md#performance).
 */
export const DAEMON_NODE_ARGS: readonly string[] = ['--enable-source-maps', '--max-semi-space-size=4'];

/** sd-daemon(3) priority prefixes, understood by journald on the unit's stderr. */
const PRIORITY = { error: '<3>', warn: '<4>', info: '<6>' } as const;

function log(message: string, level: keyof typeof PRIORITY = 'info'): void {
  const prefix = process.env.JOURNAL_STREAM !== undefined ? PRIORITY[level] : '';
  process.stderr.write(`${prefix}launcher: ${message}\n`);
}

function optionValue(
  args: string[],
  index: number,
  name: string,
): { value: string; used: number } | undefined {
  const arg = args[index]!;
  if (arg.startsWith(`${name}=`)) return { value: arg.slice(name.length + 1), used: 1 };
  if (arg === name && index + 1 < args.length) return { value: args[index + 1]!, used: 2 };
  return undefined;
}

export function parseLauncherArgs(argv: string[], defaultRoot: string): LauncherOptions {
  const options: LauncherOptions = {
    root: defaultRoot,
    readyTimeoutMs: 90_000,
    appArgs: [],
    stateDir: undefined,
  };
  for (let index = 0; index < argv.length;) {
    const root = optionValue(argv, index, '--launcher-root');
    const timeout = optionValue(argv, index, '--launcher-ready-timeout');
    const stateDir = optionValue(argv, index, '--state-dir');
    if (root) options.root = resolve(root.value);
    else if (timeout) options.readyTimeoutMs = Number(timeout.value) * 1000;
    else options.appArgs.push(...argv.slice(index, index + (stateDir?.used ?? 1)));
    if (stateDir) options.stateDir = resolve(stateDir.value);
    index += root?.used ?? timeout?.used ?? stateDir?.used ?? 1;
  }
  if (!Number.isFinite(options.readyTimeoutMs) || options.readyTimeoutMs <= 0)
    throw new Error('--launcher-ready-timeout must be a positive number of seconds');
  return options;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function linkTarget(root: string, name: string): string | undefined {
  try {
    return readlinkSync(join(root, name));
  } catch {
    return undefined;
  }
}

/** Same switch as release-layout.ts: a temporary link renamed over the old one (rename(2) is atomic). */
function switchLink(root: string, name: string, target: string): void {
  const temp = join(root, `${name}.tmp-${randomBytes(4).toString('hex')}`);
  symlinkSync(target, temp);
  renameSync(temp, join(root, name));
}

function writeAtomically(path: string, text: string): void {
  const temp = `${path}.tmp-${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

function releaseAt(root: string, target: string): Release {
  const dir = resolve(root, target);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    bin?: Record<string, string>;
  };
  const entry = manifest.bin?.['meter-gateway'];
  if (!entry) throw new Error(`${dir}/package.json has no bin.meter-gateway`);
  return { target, id: basename(target), dir, entry: join(dir, entry) };
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return signal === 'SIGTERM' || signal === 'SIGINT' ? 0 : 1;
}

class Launcher {
  private child: ChildProcess | undefined;
  private stopping = false;

  constructor(private readonly options: LauncherOptions) {
    for (const signal of STOP_SIGNALS) {
      process.on(signal, () => {
        this.stopping = true;
        this.child?.kill(signal);
      });
    }
  }

  async run(): Promise<number> {
    const { root } = this.options;
    while (!this.stopping) {
      const target = linkTarget(root, CURRENT);
      if (!target) {
        log(
          `no release installed: ${root}/current does not exist; install one with 'sudo systemd/install.sh' from a build of the repository (systemd/README.md)`,
          'error',
        );
        return EXIT_NO_RELEASE;
      }
      const release = releaseAt(root, target);
      const previous = linkTarget(root, 'previous');
      const onProbation =
        readText(join(root, 'confirmed')) !== release.id && previous !== undefined && previous !== target;
      if (onProbation && !this.options.stateDir)
        log('no --state-dir: READY cannot be watched, so no rollback');
      const outcome = await this.start(release, onProbation && this.options.stateDir !== undefined);
      if (outcome.kind === 'exited' && NOT_THE_RELEASE.has(outcome.code)) {
        log(
          `${release.id} exited with ${outcome.code}: a configuration or host problem (see its message above), not a bad release; no rollback`,
          'error',
        );
        return outcome.code;
      }
      if (outcome.kind === 'exited') {
        if (!this.restartsItself(outcome.code)) return outcome.code;
        log(`${release.id} exited cleanly; starting ${CURRENT} again (no systemd here to do it)`);
        continue;
      }
      log(`${release.id} ${outcome.why}; rolling back to ${basename(previous!)}`, 'warn');
      switchLink(root, CURRENT, previous!);
      writeAtomically(join(root, 'failed'), `${release.id}\n`);
    }
    return 0;
  }

  /**
   * The app exits with 0 to be restarted (reboot, restore, firmware switch). Under systemd
   * (NOTIFY_SOCKET set) the launcher exits too and Restart=always starts the unit again, which also
   * restarts systemd's start timeout and watchdog; without systemd the launcher restarts the app.
   */
  private restartsItself(code: number): boolean {
    return code === 0 && !this.stopping && !process.env.NOTIFY_SOCKET;
  }

  /** Runs one release until it exits, or until it fails its probation. */
  private start(release: Release, onProbation: boolean): Promise<Outcome> {
    const readyFile = this.options.stateDir ? join(this.options.stateDir, 'ready') : undefined;
    if (readyFile) rmSync(readyFile, { force: true });
    log(
      `starting ${release.id}${onProbation ? ` (on probation: READY within ${this.options.readyTimeoutMs / 1000} s)` : ''}`,
    );
    const child = spawn(process.execPath, [...DAEMON_NODE_ARGS, release.entry, ...this.options.appArgs], {
      stdio: 'inherit',
    });
    this.child = child;
    return new Promise((settle) => {
      let ready = false;
      let verdict: string | undefined;
      const poll = setInterval(() => {
        if (ready || !readyFile || readText(readyFile) !== String(child.pid)) return;
        ready = true;
        clearTimeout(deadline);
        writeAtomically(join(this.options.root, 'confirmed'), `${release.id}\n`);
        log(`${release.id} reported READY`);
      }, POLL_MS);
      const deadline = setTimeout(() => {
        if (!onProbation || ready || this.stopping) return;
        verdict = `did not report READY within ${this.options.readyTimeoutMs / 1000} s`;
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS).unref();
      }, this.options.readyTimeoutMs);
      child.on('error', (error) => log(`cannot start ${release.entry}: ${error.message}`, 'error'));
      child.on('close', (code, signal) => {
        clearInterval(poll);
        clearTimeout(deadline);
        this.child = undefined;
        if (onProbation && !ready && !this.stopping && !(code !== null && NOT_THE_RELEASE.has(code))) {
          settle({
            kind: 'failed-before-ready',
            why: verdict ?? `exited before READY (${signal ?? `code ${code}`})`,
          });
        } else {
          settle({ kind: 'exited', code: exitCodeOf(code, signal) });
        }
      });
    });
  }
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  try {
    const options = parseLauncherArgs(process.argv.slice(2), dirname(fileURLToPath(import.meta.url)));
    process.exitCode = await new Launcher(options).run();
  } catch (error) {
    log((error as Error).message, 'error');
    process.exitCode = 1;
  }
}
