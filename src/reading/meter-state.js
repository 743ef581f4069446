import { METER_STATUSES } from '../contracts/values.js';
/** meter.status values (docs/architecture.md#meter-status). */
export { METER_STATUSES };
