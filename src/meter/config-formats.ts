import {
  describeString,
  FormatError,
  jsonValueFormat,
  registerFormats,
  rejectIssues,
  stringSchema,
  type ConfigFormat,
  type IssueRule,
} from '../config/formats.js';
import { scalerIssues, type MeterScaler } from './scalers.js';
import { registerMetersFormats } from './meters-format.js';
import { parseSource, redactSource, SourceError } from './source.js';

declare module '../config/formats.js' {
  interface FormatTypes {
    'meter-source': string;
    /** The device's custom meter scalers: [{obis: "C.D.E", scaler: -6..6}]. */
    'meter-scalers': MeterScaler[];
  }
}

/**
 * meter.source: a string of at most `maxLength` characters that parses as a source URI, so the
 * admin's file, the environment and /api/v1/meter/settings get the same check. A rejected value is
 * shown with a remote source's password cut out.
 */
const METER_SOURCE: ConfigFormat = {
  name: 'meter-source',
  validate(value, item) {
    const max = item.maxLength;
    const lengthRule = `must be a string${max === undefined ? '' : ` of at most ${max} characters`}`;
    if (typeof value !== 'string') throw new FormatError('not-string', lengthRule);
    const shownValue = redactSource(value).shown;
    if (max !== undefined && [...value].length > max) {
      throw new FormatError('too-long', lengthRule, { shownValue });
    }
    try {
      parseSource(value);
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      throw new FormatError('invalid-source', error.reason, { shownValue, summary: error.message });
    }
  },
  describe: describeString,
  jsonSchema: stringSchema,
};

/**
 * meter.scalers: the custom scalers of /api/v1/meter/scalers/custom, checked alike from the API, the
 * admin's file and the environment (JSON text).
 */
const SCALERS_RULE: IssueRule = {
  reason: 'invalid-scalers',
  must: 'must be a list of {obis, scaler}',
  whole: 'scalers',
  withParts: true,
};

const METER_SCALERS = jsonValueFormat('meter-scalers', {
  check: (value) => rejectIssues(scalerIssues(value), SCALERS_RULE),
  describe: 'list of {obis: "C.D.E" (E 255: every E), scaler: -6..6}',
  jsonSchema: {
    type: 'array',
    items: {
      type: 'object',
      properties: { obis: { type: 'string' }, scaler: { type: 'integer', minimum: -6, maximum: 6 } },
    },
  },
});

/** Registers the meter's formats of the config schema; the daemon calls it before the config loads. */
export function registerMeterFormats(): void {
  registerFormats([METER_SOURCE, METER_SCALERS]);
  registerMetersFormats();
}
