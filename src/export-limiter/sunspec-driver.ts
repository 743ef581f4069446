/**
 * The SunSpec inverter driver (profiles `sunspec`, `fronius`, `sma`; docs/architecture.md#export-limiter)
 * and the SunSpec reads the vendor drivers share: the model list found from the "SunS" marker and
 * the output of model 101/102/103 (register maps in src/export-limiter/sunspec.ts).
 */
import { LinkError, type RegisterLink } from './modbus-link.js';
import type { InverterDriver, InverterFacts, InverterProfileName } from './inverter-driver.js';
import {
  M103,
  M120,
  M123,
  M704,
  model123Cancel,
  model123Limit,
  model704Cancel,
  model704Limit,
  rawPercent,
  scaled,
  sunssf,
  SUNS_MARKER,
  SUNSPEC_BASES,
  int16,
  uint16,
  walkModels,
  type RegisterWrite,
} from './sunspec.js';

interface Layout {
  output: number;
  nameplate: number | undefined;
  control: number;
  model: 704 | 123;
  sf: number;
}

/**
 * SunSpec inverters (profiles `sunspec`, `fronius`): the model list walked from the "SunS" marker,
 * output from model 103 (else 102, 101), the limit through model 704 when present, else 123, each
 * written with its scale factor and revert time in one FC16 block (src/export-limiter/sunspec.ts).
 * Fronius serves SunSpec models 1, 103 (or 113 float, not read here), 120, 123 and, on GEN24
 * firmware, 704 (Fronius "Datamanager Modbus TCP & RTU" and "GEN24 Modbus" interface documents).
 *
 * `sma`: SMA inverters serve SunSpec model 123, but keep WMaxLim_Ena and the revert settings in
 * non-volatile memory with a limited number of write cycles (SMA technical information "SunSpec
 * Modbus interface", parameter storage): the installer enables the limit once; the profile writes
 * WMaxLimPct alone (one register) and never the enable or revert points.
 */
export class SunSpecDriver implements InverterDriver {
  readonly control = 'limit';
  private layout: Layout | undefined;

  constructor(
    private readonly link: RegisterLink,
    private readonly profile: InverterProfileName,
  ) {}

  async probe(configuredWmaxW: number | undefined): Promise<InverterFacts> {
    const models = await this.models();
    const output = models.get(103) ?? models.get(102) ?? models.get(101);
    if (output === undefined) throw new LinkError('invalid', 'no SunSpec inverter model (101, 102 or 103)');
    const use704 = this.profile !== 'sma' && models.has(704);
    const control = use704 ? models.get(704) : models.get(123);
    if (control === undefined) throw new LinkError('invalid', 'no SunSpec control model (123 or 704)');
    const model = use704 ? 704 : 123;
    let installerPct: number | null;
    let sf: number | null;
    if (model === 704) {
      const words = await this.link.read(control, M704.WMaxLimPct_SF + 1);
      sf = sunssf(words[M704.WMaxLimPct_SF]);
      const pct = uint16(words[M704.WMaxLimPct]);
      installerPct = words[M704.WMaxLimPctEna] === 1 && pct !== null && sf !== null ? scaled(pct, sf) : null;
    } else {
      const words = await this.link.read(control, M123.WMaxLimPct_SF + 1);
      sf = sunssf(words[M123.WMaxLimPct_SF]);
      const pct = uint16(words[M123.WMaxLimPct]);
      installerPct = words[M123.WMaxLim_Ena] === 1 && pct !== null && sf !== null ? scaled(pct, sf) : null;
    }
    if (sf === null) throw new LinkError('invalid', `model ${model} WMaxLimPct_SF absent (0x8000)`);
    this.layout = { output, nameplate: models.get(120), control, model, sf };
    let wmaxW = configuredWmaxW;
    if (wmaxW === undefined && this.layout.nameplate !== undefined) {
      const words = await this.link.read(this.layout.nameplate, M120.WRtg_SF + 1);
      const rating = uint16(words[M120.WRtg]);
      const ratingSf = sunssf(words[M120.WRtg_SF]);
      if (rating !== null && ratingSf !== null) wmaxW = scaled(rating, ratingSf);
    }
    if (wmaxW === undefined || !(wmaxW > 0))
      throw new LinkError('invalid', 'no rated power: set wmax_w (the inverter serves no model 120 WRtg)');
    if (installerPct !== null && (installerPct < 0 || installerPct > 100)) installerPct = null;
    return { wmaxW, installerPct, model, outputW: await this.readOutput() };
  }

  readOutput(): Promise<number> {
    if (!this.layout) return Promise.reject(new LinkError('invalid', 'inverter not probed'));
    return sunspecOutput(this.link, this.layout.output);
  }

  async writeLimit(percent: number, safePct: number, revertS: number): Promise<RegisterWrite> {
    const layout = this.need();
    let block: RegisterWrite;
    if (this.profile === 'sma')
      block = { address: layout.control + M123.WMaxLimPct, words: [rawPercent(percent, layout.sf)] };
    else if (layout.model === 704)
      block = model704Limit(layout.control, percent, safePct, layout.sf, revertS);
    else block = model123Limit(layout.control, percent, layout.sf, revertS);
    await this.link.write(block.address, block.words);
    return block;
  }

  async cancel(): Promise<RegisterWrite> {
    const layout = this.need();
    // SMA: the enable is the installer's (see the class comment); 100 % is "no limit".
    const block =
      this.profile === 'sma'
        ? { address: layout.control + M123.WMaxLimPct, words: [rawPercent(100, layout.sf)] }
        : layout.model === 704
          ? model704Cancel(layout.control)
          : model123Cancel(layout.control);
    await this.link.write(block.address, block.words);
    return block;
  }

  private need(): Layout {
    if (!this.layout) throw new LinkError('invalid', 'inverter not probed');
    return this.layout;
  }

  private models(): Promise<Map<number, number>> {
    return sunspecModels(this.link);
  }
}

/** The SunSpec model list of the device behind `link` (model id -> address of its ID register). */
export async function sunspecModels(link: RegisterLink): Promise<Map<number, number>> {
  for (const base of SUNSPEC_BASES) {
    let marker: number[];
    try {
      marker = await link.read(base, 2);
    } catch (error) {
      if (error instanceof LinkError && error.kind === 'exception') continue;
      throw error;
    }
    if (marker[0] === SUNS_MARKER[0] && marker[1] === SUNS_MARKER[1])
      return walkModels((address, count) => link.read(address, count), base);
  }
  throw new LinkError('invalid', 'no SunSpec map (no "SunS" at 40000, 50000 or 0)');
}

/** Output (W) of SunSpec model 101/102/103 at `address`: W × 10^W_SF. */
export async function sunspecOutput(link: RegisterLink, address: number): Promise<number> {
  const words = await link.read(address + M103.W, 2);
  const raw = int16(words[0]);
  const sf = sunssf(words[1]);
  if (raw === null || sf === null) throw new LinkError('invalid', 'model 103 W or W_SF absent (0x8000)');
  const watts = scaled(raw, sf);
  if (!Number.isFinite(watts)) throw new LinkError('invalid', 'output is not a number');
  return watts;
}
