import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from 'typebox';
import { writeFileAtomic } from '../config/atomic-file.js';
import { VersionedStateFile, type StateFileOptions } from '../config/state-file.js';

/** What the limiter keeps of an inverter across restarts. */
export interface InverterMemory {
  source: string;
  /** The limit found enabled before the gateway's first write (%), null when there was none. */
  installer_pct: number | null;
  /** `setpoint` devices (victron_ess): the grid setpoint found before the first write (W). */
  setpoint_w?: number;
}

/** A file larger than any the limiter writes is not read: it is moved aside like an invalid one. */
const MAX_BYTES = 64 * 1024;

/** The file's contract: an invalid file is moved aside and nothing is remembered (docs/architecture.md#durability). */
const LimiterFileSchema = Type.Object({
  version: Type.Literal(1),
  inverters: Type.Record(
    Type.String(),
    Type.Object({
      source: Type.String(),
      installer_pct: Type.Union([Type.Null(), Type.Number({ minimum: 0, maximum: 100 })]),
      setpoint_w: Type.Optional(Type.Number({ minimum: -32768, maximum: 32767 })),
    }),
  ),
});

/**
 * `<state>/export-limiter.json` (docs/architecture.md#export-limiter): the installer's limit of each
 * inverter as found before the gateway first wrote to it, written atomically before that first
 * write. After a restart (or a kill) the inverter still holds the gateway's own limit, which
 * must not be taken for an installer's ceiling; the remembered value is used instead. An entry is
 * dropped when the gateway hands the inverter back, so the next start reads the inverter afresh.
 */
export class LimiterStateFile {
  private entries: Record<string, InverterMemory> | undefined;

  private readonly file: VersionedStateFile<typeof LimiterFileSchema>;

  constructor(
    private readonly dir: string,
    private readonly options: StateFileOptions,
  ) {
    this.file = new VersionedStateFile(this.path, LimiterFileSchema, { ...options, maxBytes: MAX_BYTES });
  }

  get path(): string {
    return join(this.dir, 'export-limiter.json');
  }

  get(id: string, source: string): InverterMemory | undefined {
    const entry = this.load()[id];
    return entry && entry.source === source ? entry : undefined;
  }

  set(id: string, memory: InverterMemory): void {
    const entries = this.load();
    entries[id] = memory;
    this.save(entries);
  }

  forget(id: string): void {
    const entries = this.load();
    if (!(id in entries)) return;
    delete entries[id];
    this.save(entries);
  }

  private load(): Record<string, InverterMemory> {
    if (this.entries) return this.entries;
    this.entries = {};
    for (const [id, entry] of Object.entries(this.file.load()?.inverters ?? {}))
      this.entries[id] = {
        source: entry.source,
        installer_pct: entry.installer_pct,
        ...(entry.setpoint_w === undefined ? {} : { setpoint_w: entry.setpoint_w }),
      };
    return this.entries;
  }

  private save(entries: Record<string, InverterMemory>): void {
    this.entries = entries;
    if (Object.keys(entries).length === 0) {
      rmSync(this.path, { force: true });
      return;
    }
    // Indented: an installer reads this file to see which limits the gateway found.
    writeFileAtomic(this.path, `${JSON.stringify({ version: 1, inverters: entries }, null, 2)}\n`);
  }
}
