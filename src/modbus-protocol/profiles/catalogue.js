import { DTSU666_BLOCKS, DTSU666_POINTS, DTSU666_POLLS } from './dtsu666.js';
import { EASTRON_POLLS, SDM120_BLOCKS, SDM120_POINTS, SDM630_BLOCKS, SDM630_POINTS, SDM72_BLOCKS, SDM72_POINTS, } from './eastron.js';
import { SUNSPEC_BLOCKS } from './sunspec.js';
/**
 * The register maps a slave can answer with. `whatwatt` is the whatwatt Go's own map (input registers
 * from the default or the custom layout of /api/v1/modbus); the others copy a real meter that
 * inverters poll for zero-export control.
 */
export const PROFILE_NAMES = ['whatwatt', 'sdm630', 'sdm120', 'sdm72', 'dtsu666', 'sunspec'];
export const METER_PROFILES = {
    sdm630: SDM630_BLOCKS,
    sdm120: SDM120_BLOCKS,
    sdm72: SDM72_BLOCKS,
    dtsu666: DTSU666_BLOCKS,
    sunspec: SUNSPEC_BLOCKS,
};
/** The meter each register map copies, as settings pages name it. */
export const PROFILE_TITLES = {
    whatwatt: 'whatwatt (the device layout)',
    sdm630: 'Eastron SDM630',
    sdm120: 'Eastron SDM120',
    sdm72: 'Eastron SDM72',
    dtsu666: 'Chint DTSU666',
    sunspec: 'SunSpec meter (model 203)',
};
export const FLOAT_READ_MAPS = {
    sdm630: { polls: EASTRON_POLLS, points: SDM630_POINTS },
    sdm120: { polls: EASTRON_POLLS, points: SDM120_POINTS },
    sdm72: { polls: EASTRON_POLLS, points: SDM72_POINTS },
    dtsu666: { polls: DTSU666_POLLS, points: DTSU666_POINTS },
};
