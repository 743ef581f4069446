import Type, { type Static } from 'typebox';
import { METER_TEST_DEFAULT_WAIT_S, METER_TEST_MAX_WAIT_S } from './values.js';

/** POST /api/v1/meters/test: a meter source to try, and how long to wait for its first reading. */

export const MeterTestRequestSchema = Type.Object({
  source: Type.String({ description: 'the meter.source URI to test' }),
  wait: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: METER_TEST_MAX_WAIT_S,
      description: `seconds to wait for the first reading; default ${METER_TEST_DEFAULT_WAIT_S}`,
    }),
  ),
});
export type MeterTestRequest = Static<typeof MeterTestRequestSchema>;
