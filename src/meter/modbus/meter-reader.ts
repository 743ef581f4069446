import {
  FLOAT_READ_MAPS,
  type FloatReadMap,
  type MeterProfileName,
} from '../../modbus-protocol/profiles/catalogue.js';
import { decodeFloats, type PollRange } from '../../modbus-protocol/profiles/float-points.js';
import type { MeasuredValues } from '../../modbus-protocol/profiles/quantities.js';
import { decodeMeterModel, METER_MODEL_IDS } from '../../modbus-protocol/profiles/sunspec.js';
import type { MeterIdentity } from '../../reading/reading.js';

/** The two reads a meter source needs from a Modbus master (modbus-serial's client has both). */
export interface RegisterClient {
  readInputRegisters(address: number, length: number): Promise<{ buffer: Buffer }>;
  readHoldingRegisters(address: number, length: number): Promise<{ buffer: Buffer }>;
}

/** Reads one meter's quantities with its profile's map; `identity` is what the map reveals. */
export interface MeterReader {
  readonly identity: MeterIdentity;
  read(client: RegisterClient): Promise<MeasuredValues>;
}

const VENDOR: Readonly<Record<Exclude<MeterProfileName, 'sunspec'>, [string, string]>> = {
  sdm630: ['Eastron', 'SDM630'],
  sdm120: ['Eastron', 'SDM120'],
  sdm72: ['Eastron', 'SDM72D-M-2'],
  dtsu666: ['Chint', 'DTSU666'],
};

/** A Modbus exception reply (modbus-serial sets `modbusCode`), not a timeout or a broken link. */
function isExceptionReply(error: unknown): boolean {
  return typeof (error as { modbusCode?: unknown } | null)?.modbusCode === 'number';
}

/**
 * Eastron and Chint: the profile's poll ranges, decoded by its float points. An optional range the
 * meter answers with an exception (Modbus Application Protocol 1.1b3 §7: 02 illegal data address on
 * a model without those registers) is not asked again by this reader.
 */
class FloatMeterReader implements MeterReader {
  readonly identity: MeterIdentity;
  private readonly absent = new Set<PollRange>();

  constructor(
    private readonly map: FloatReadMap,
    [vendor, model]: [string, string],
  ) {
    this.identity = { vendor, model };
  }

  async read(client: RegisterClient): Promise<MeasuredValues> {
    const out: MeasuredValues = {};
    for (const poll of this.map.polls) {
      if (this.absent.has(poll)) continue;
      const read = poll.table === 'input' ? client.readInputRegisters : client.readHoldingRegisters;
      try {
        const { buffer } = await read.call(client, poll.start, poll.words);
        Object.assign(out, decodeFloats(this.map.points, poll.start, buffer));
      } catch (error) {
        if (!poll.optional || !isExceptionReply(error)) throw error;
        this.absent.add(poll);
      }
    }
    return out;
  }
}

/** SunSpec Information Model: "SunS" at one of the base addresses the specification allows. */
const SUNSPEC_BASES = [40000, 0, 50000];
/** A chain longer than this is not a SunSpec map (guards against walking a garbage map forever). */
const MAX_MODELS = 64;
/** Registers of a meter model decoded (up to and including TotVArh_SF). */
const METER_MODEL_READ = 103;

function text(bytes: Buffer): string | undefined {
  const value = bytes.toString('latin1').replace(/\0.*$/s, '').trim();
  return value === '' ? undefined : value;
}

/**
 * SunSpec: finds the meter model (201..204) by walking the model chain from "SunS" (each model is
 * ID, L, then L registers; ID 0xFFFF ends the chain), reads the common model 1 for the identity,
 * then reads the meter model on every poll. The location is found again after a failed poll.
 */
class SunSpecMeterReader implements MeterReader {
  identity: MeterIdentity = {};
  private meterModel: number | undefined;

  async read(client: RegisterClient): Promise<MeasuredValues> {
    this.meterModel ??= await this.walk(client);
    try {
      const { buffer } = await client.readHoldingRegisters(this.meterModel, METER_MODEL_READ);
      return decodeMeterModel(buffer);
    } catch (error) {
      this.meterModel = undefined;
      throw error;
    }
  }

  private async walk(client: RegisterClient): Promise<number> {
    const base = await this.findBase(client);
    let address = base + 2;
    for (let models = 0; models < MAX_MODELS && address < 0xfffe; models++) {
      const header = (await client.readHoldingRegisters(address, 2)).buffer;
      const [id, length] = [header.readUInt16BE(0), header.readUInt16BE(2)];
      if (id === 0xffff) break;
      if (id === 1 && length >= 64) await this.readCommon(client, address + 2);
      if (METER_MODEL_IDS.includes(id) && length >= METER_MODEL_READ) return address + 2;
      address += 2 + length;
    }
    throw new Error(`no SunSpec meter model (201..204) in the chain from ${base}`);
  }

  private async findBase(client: RegisterClient): Promise<number> {
    for (const base of SUNSPEC_BASES) {
      try {
        const marker = (await client.readHoldingRegisters(base, 2)).buffer;
        if (marker.toString('latin1') === 'SunS') return base;
      } catch (error) {
        if ((error as { modbusCode?: number }).modbusCode === undefined) throw error;
      }
    }
    throw new Error('no SunSpec map ("SunS" at 40000, 0 or 50000)');
  }

  /** Model 1: Mn (16 registers), Md (16), Opt (8), Vr (8), SN (16). */
  private async readCommon(client: RegisterClient, address: number): Promise<void> {
    const common = (await client.readHoldingRegisters(address, 64)).buffer;
    const identity: MeterIdentity = {};
    const [vendor, model, id] = [
      text(common.subarray(0, 32)),
      text(common.subarray(32, 64)),
      text(common.subarray(96, 128)),
    ];
    if (vendor) identity.vendor = vendor;
    if (model) identity.model = model;
    if (id) identity.id = id;
    this.identity = identity;
  }
}

export function createMeterReader(profile: MeterProfileName): MeterReader {
  if (profile === 'sunspec') return new SunSpecMeterReader();
  return new FloatMeterReader(FLOAT_READ_MAPS[profile], VENDOR[profile]);
}
