import type { RegisterBlock } from '../register-space.js';
import { DTSU666_BLOCKS } from './dtsu666.js';
import { SDM120_BLOCKS, SDM630_BLOCKS, SDM72_BLOCKS } from './eastron.js';
import type { GridValues } from './grid-values.js';
import { SUNSPEC_BLOCKS } from './sunspec.js';

/**
 * The register maps a slave can answer with. `whatwatt` is the whatwatt Go's own map (input registers
 * from the default or the custom layout of /api/v1/modbus); the others copy a real meter that
 * inverters poll for zero-export control.
 */
export const PROFILE_NAMES = ['whatwatt', 'sdm630', 'sdm120', 'sdm72', 'dtsu666', 'sunspec'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export const METER_PROFILES: Readonly<
  Record<Exclude<ProfileName, 'whatwatt'>, ReadonlyArray<RegisterBlock<GridValues>>>
> = {
  sdm630: SDM630_BLOCKS,
  sdm120: SDM120_BLOCKS,
  sdm72: SDM72_BLOCKS,
  dtsu666: DTSU666_BLOCKS,
  sunspec: SUNSPEC_BLOCKS,
};

/** The meter each register map copies, as settings pages name it. */
export const PROFILE_TITLES: Readonly<Record<ProfileName, string>> = {
  whatwatt: 'whatwatt (spec layout)',
  sdm630: 'Eastron SDM630',
  sdm120: 'Eastron SDM120',
  sdm72: 'Eastron SDM72',
  dtsu666: 'Chint DTSU666',
  sunspec: 'SunSpec meter (model 203)',
};
