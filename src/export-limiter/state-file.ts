import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic-file.js';

/** What the limiter keeps of an inverter across restarts. */
export interface InverterMemory {
  source: string;
  /** The limit found enabled before the gateway's first write (%), null when there was none. */
  installer_pct: number | null;
}

const MAX_BYTES = 64 * 1024;

/**
 * `<state>/export-limiter.json` (docs/architecture.md#export-limiter): the installer's limit of each
 * inverter as found before the gateway first wrote to it, written atomically before that first
 * write. After a restart (or a kill) the inverter still holds the gateway's own limit, which
 * must not be taken for an installer's ceiling; the remembered value is used instead. An entry is
 * dropped when the gateway hands the inverter back, so the next start reads the inverter afresh.
 */
export class LimiterStateFile {
  private entries: Record<string, InverterMemory> | undefined;

  constructor(private readonly dir: string) {}

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
    try {
      const text = readFileSync(this.path, 'utf8');
      if (text.length > MAX_BYTES) return this.entries;
      const data = JSON.parse(text) as { version?: unknown; inverters?: unknown };
      if (data?.version !== 1 || typeof data.inverters !== 'object' || data.inverters === null)
        return this.entries;
      for (const [id, value] of Object.entries(data.inverters as Record<string, unknown>)) {
        const entry = value as Partial<InverterMemory> | null;
        const pct = entry?.installer_pct;
        if (
          typeof entry?.source === 'string' &&
          (pct === null || (typeof pct === 'number' && Number.isFinite(pct) && pct >= 0 && pct <= 100))
        )
          this.entries[id] = { source: entry.source, installer_pct: pct };
      }
    } catch {
      // absent or unreadable: nothing remembered, the inverter is read afresh
    }
    return this.entries;
  }

  private save(entries: Record<string, InverterMemory>): void {
    this.entries = entries;
    if (Object.keys(entries).length === 0) {
      rmSync(this.path, { force: true });
      return;
    }
    writeFileAtomic(this.path, `${JSON.stringify({ version: 1, inverters: entries }, null, 2)}\n`);
  }
}
