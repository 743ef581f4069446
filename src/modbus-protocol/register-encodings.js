/**
 * How meter register maps put numbers into 16-bit registers: every profile here sends the most
 * significant word first (big-endian words, big-endian bytes within a word), as Eastron, Chint and
 * SunSpec all specify. `address` is the 0-based register address inside the block's buffer.
 */
/** Rounded half away from zero; NaN (missing) becomes 0; saturated at [min, max]. */
export function toInteger(value, min, max) {
    if (Number.isNaN(value))
        return 0;
    const rounded = Math.sign(value) * Math.floor(Math.abs(value) + 0.5);
    return Math.min(max, Math.max(min, rounded)) + 0;
}
/** Text as printable ASCII (others become '?'), truncated to the target, rest left zero. */
export function writeAscii(text, target) {
    if (text === undefined)
        return;
    const length = Math.min(text.length, target.length);
    for (let i = 0; i < length; i++) {
        const code = text.charCodeAt(i);
        target[i] = code >= 0x20 && code <= 0x7e ? code : 0x3f;
    }
}
/** IEEE 754 single precision in two registers; undefined (no data) is NaN. */
export function putFloat32(target, address, value) {
    target.writeFloatBE(value ?? NaN, address * 2);
}
export function putUint16(target, address, value) {
    target.writeUInt16BE(toInteger(value, 0, 0xffff), address * 2);
}
export function putInt16(target, address, value) {
    target.writeInt16BE(toInteger(value, -0x8000, 0x7fff), address * 2);
}
export function putUint32(target, address, value) {
    target.writeUInt32BE(toInteger(value, 0, 0xffffffff), address * 2);
}
/** ASCII text, NUL padded to `words` registers (writeAscii: non-printable characters become '?'). */
export function putString(target, address, words, text) {
    writeAscii(text, target.subarray(address * 2, (address + words) * 2));
}
