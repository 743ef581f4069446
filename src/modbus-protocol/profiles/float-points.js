import { quantityValue } from './quantities.js';
import { putFloat32 } from '../register-encodings.js';
/** The point at `address`: `quantity` times `scale`, or a register with no value when no quantity. */
export function floatPoint(address, quantity, scale) {
    return {
        address,
        ...(quantity === undefined ? {} : { quantity }),
        ...(scale === undefined ? {} : { scale }),
    };
}
function encoded(point, values) {
    if (point.derive)
        return point.derive(values);
    if (point.quantity === undefined)
        return undefined;
    const value = quantityValue(values, point.quantity);
    return value === undefined ? undefined : value * (point.scale ?? 1);
}
/** A block of `words` registers from `start` serving the points inside it (gaps read 0). */
export function floatBlock(table, start, words, points) {
    const inside = points.filter((p) => p.address >= start && p.address + 2 <= start + words);
    return {
        table,
        start,
        words,
        fill(values, target) {
            for (const point of inside)
                putFloat32(target, point.address - start, encoded(point, values));
        },
    };
}
/**
 * The quantities of the points inside a range read from the meter (`bytes` = the registers from
 * `start`). NaN and infinities (the meter has no value) are left out.
 */
export function decodeFloats(points, start, bytes) {
    const out = {};
    const end = start + bytes.length / 2;
    for (const point of points) {
        if (point.quantity === undefined || point.address < start || point.address + 2 > end)
            continue;
        const raw = bytes.readFloatBE((point.address - start) * 2);
        // A single carries 24 bits of mantissa: about 7 significant digits, no more.
        if (Number.isFinite(raw))
            out[point.quantity] = Number((raw / (point.scale ?? 1)).toPrecision(7));
    }
    return out;
}
