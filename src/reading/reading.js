/**
 * The protocol-independent meter reading: what every parser produces and every output consumes.
 *
 * Values are keyed by the OBIS code groups C.D.E of the electricity medium (A=1, B=0 or the
 * channel the meter uses), for example `1.8.1`, `21.7.0`, `32.7.0`. Every value is already in the
 * canonical unit of its quantity (see `canonicalUnit` in ./units.ts): kW, kvar, kVA, kWh, kvarh, V,
 * A, Hz, or no unit for ratios. Parsers convert (W -> kW, Wh -> kWh, scaler applied) before they
 * hand a Reading to the store, so outputs never see meter-specific units.
 */
/** Builds the values map from plain entries; convenience for parsers and tests. */
export function valuesOf(entries) {
    const map = new Map();
    for (const [key, [value, unit]] of Object.entries(entries))
        map.set(key, { value, unit });
    return map;
}
