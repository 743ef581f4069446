import { valuesOf } from '../../src/reading/reading.js';
import type { HttpTestContext } from '../helpers/http-context.js';

/**
 * Feeds the context's store one DSMR reading per second of its frozen clock: `kw` import for
 * `seconds` seconds, with A+ (1.8.0) integrating it exactly from `startKwh`.
 */
export function importFeeder(h: HttpTestContext, startKwh: number): (kw: number, seconds: number) => void {
  let kwh = startKwh;
  return (kw, seconds) => {
    for (let i = 0; i < seconds; i++) {
      h.clock.advance(1000);
      kwh += kw / 3600;
      h.ctx.store.ingest({
        receivedAt: h.clock.now(),
        protocol: 'DSMR',
        identity: {},
        values: valuesOf({ '1.8.0': [kwh, 'kWh'], '1.7.0': [kw, 'kW'], '2.7.0': [0, 'kW'] }),
        mbus: [],
      });
    }
  };
}
