import {
  describeString,
  FormatError,
  registerFormats,
  stringSchema,
  type ConfigFormat,
} from '../config/formats.js';
import { registerMetersFormats } from './meters-format.js';
import { parseSource, redactSource, SourceError } from './source.js';

declare module '../config/formats.js' {
  interface FormatTypes {
    'meter-source': string;
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

/** Registers the meter's formats of the config schema; the daemon calls it before the config loads. */
export function registerMeterFormats(): void {
  registerFormats([METER_SOURCE]);
  registerMetersFormats();
}
