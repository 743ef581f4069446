import { type Timer } from '../clock.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { Backoff } from '../backoff.js';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import { buildLivePayload } from '../reading/live.js';
import type { Reading } from '../reading/reading.js';
import type { AppConfig } from '../config/types.js';
import type { DeclaredOutput, OutputStatus, OutputView, StatusPort } from '../output.js';

/** Bytes a script may leave unread on stdin before further readings are skipped for it (and counted). */
const MAX_STDIN_BACKLOG = 256 * 1024;
/** A script that ran this long without crashing resets the restart backoff. */
const STABLE_AFTER_MS = 60_000;

export type ScriptState = 'IDLE' | 'RUNNING' | 'ERROR';

/** The status facts of scripting; `script` is the device's services.berry state in /api/v1/system. */
export type ScriptFacts = {
  script: ScriptState;
  restarts: number;
  skipped_readings: number;
};
export type ScriptStatus = OutputStatus<ScriptFacts>;

/** services.berry and scripting.file. */
interface ScriptSettings {
  autoRun: boolean;
  runDelayS: number;
  file: string;
}

export interface ScriptRunnerOptions {
  /** Replaces services.berry.run_delay (seconds) in tests. */
  runDelayMs?: number;
  /** Backoff between restarts after a crash (default 1 s doubling to 60 s). */
  backoff?: Backoff;
}

/** The local API address a script should call (the HTTP service's port, on loopback when it listens on any). */
function apiUrl(context: AppContext): string | undefined {
  const http = context.services.get('http');
  if (http?.state !== 'running' || typeof http.port !== 'number') return undefined;
  const host =
    typeof http.host === 'string' && http.host !== '0.0.0.0' && http.host !== '::' ? http.host : '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${http.port}`;
}

/**
 * Scripting (services.berry; the real device runs Berry scripts, this one a Node module): when
 * auto_run is on, run_delay seconds after start the user's script (scripting.file) runs in a child
 * process that gets every reading as one JSON line (the live payload) on stdin and the local API
 * address in METER_GATEWAY_API; it is restarted with backoff when it exits (`retrying` with the
 * exit as error meanwhile). The fact `script` (IDLE, RUNNING or ERROR) is the device's
 * services.berry state in /api/v1/system. Needs license PLUS or PRO.
 */
export class ScriptRunner implements DeclaredOutput<ScriptSettings, ScriptFacts> {
  readonly name = 'scripting';
  readonly watches = ['services.berry', 'scripting.file'] as const;
  readonly license = 'PLUS';
  /** Nothing runs until the first reconcile. */
  private view: OutputView<ScriptSettings> = {
    slice: { autoRun: false, runDelayS: 0, file: '' },
  };
  private child: ChildProcess | undefined;
  private timer: Timer | undefined;
  private state: ScriptState = 'IDLE';
  private lastError: string | undefined;
  private status: StatusPort<ScriptFacts> | undefined;
  private restarts = 0;
  private skipped = 0;
  private startedAt = 0;
  private readonly backoff: Backoff;
  private readonly onReading = (reading: Reading) => this.feed(reading);

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
    private readonly options: ScriptRunnerOptions = {},
  ) {
    this.backoff = options.backoff ?? new Backoff(1000, 60_000, 0.2);
  }

  select(config: AppConfig): ScriptSettings {
    const { auto_run: autoRun, run_delay: runDelayS } = config.services.berry;
    return { autoRun, runDelayS, file: config.scripting.file };
  }

  /** Off (`disabled`) without auto_run or without a script file. */
  enabled(slice: ScriptSettings): boolean {
    return slice.autoRun && slice.file !== '';
  }

  async start(status: StatusPort<ScriptFacts>): Promise<void> {
    this.status = status;
    this.context.store.subscribe('scripting', 'reading', this.onReading);
  }

  /** Any change stops the script and runs it again after the run delay, if it is still wanted. */
  apply(view: OutputView<ScriptSettings>): void {
    this.view = view;
    this.halt();
    this.schedule(this.delayMs());
  }

  async stop(): Promise<void> {
    this.context.store.off('reading', this.onReading);
    this.halt();
    this.status = undefined;
  }

  private delayMs(): number {
    return this.options.runDelayMs ?? this.view.slice.runDelayS * 1000;
  }

  private wanted(): string | undefined {
    const { slice, blocked } = this.view;
    if (!slice.autoRun || !slice.file || blocked) return undefined;
    return resolve(slice.file);
  }

  private schedule(delayMs: number): void {
    this.publish();
    if (!this.wanted()) return;
    this.timer = this.context.clock.setTimeout(() => {
      this.timer = undefined;
      this.run();
    }, delayMs);
  }

  private run(): void {
    const file = this.wanted();
    if (!file) return;
    const api = apiUrl(this.context);
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, ...(api ? { METER_GATEWAY_API: api } : {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    this.startedAt = this.context.clock.now();
    this.state = 'RUNNING';
    this.lastError = undefined;
    this.logger.info(`started ${file} (pid ${child.pid ?? '?'})`);
    child.stdin?.on('error', () => undefined);
    child.stdout?.on('data', (chunk: Buffer) => this.logLines(chunk, 'info'));
    child.stderr?.on('data', (chunk: Buffer) => this.logLines(chunk, 'warn'));
    child.on('error', (error) => this.onExit(child, `cannot start: ${error.message}`));
    child.on('exit', (code, signal) => this.onExit(child, `exited with ${signal ?? `code ${code}`}`));
    this.publish();
  }

  private onExit(child: ChildProcess, why: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    if (this.context.clock.now() - this.startedAt >= STABLE_AFTER_MS) this.backoff.reset();
    this.state = 'ERROR';
    this.lastError = why;
    this.restarts += 1;
    this.status?.trouble(why);
    const delay = this.backoff.next();
    this.logger.warn(`script ${why}; restarting in ${Math.round(delay / 100) / 10} s`);
    this.schedule(delay);
  }

  private feed(reading: Reading): void {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return;
    if (stdin.writableLength > MAX_STDIN_BACKLOG) {
      this.skipped += 1;
      return;
    }
    stdin.write(`${JSON.stringify(buildLivePayload(reading, this.context.system.bootTime))}\n`);
  }

  private logLines(chunk: Buffer, level: 'info' | 'warn'): void {
    for (const line of chunk.toString('utf8').split('\n'))
      if (line.trim()) this.logger.log(level, `script: ${line}`);
  }

  private halt(): void {
    if (this.timer) this.context.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const child = this.child;
    this.child = undefined;
    if (child) child.kill('SIGTERM');
    this.state = 'IDLE';
    this.lastError = undefined;
    this.publish();
  }

  /** The live facts; the exit that is retried is the status port's trouble. */
  private publish(): void {
    if (this.lastError === undefined) this.status?.trouble(undefined);
    this.status?.facts({ script: this.state, restarts: this.restarts, skipped_readings: this.skipped });
  }
}
