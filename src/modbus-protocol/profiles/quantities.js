/** The value of one quantity in a GridValues. */
export function quantityValue(values, quantity) {
    const dot = quantity.indexOf('.');
    if (dot < 0)
        return values[quantity];
    const field = quantity.slice(0, dot);
    return values[field][Number(quantity.slice(dot + 1))];
}
/** The three per-phase names of a phase quantity. */
export function phases(field) {
    return [`${field}.0`, `${field}.1`, `${field}.2`];
}
/** The per-phase names of voltage, current, active and reactive power, the meters' phase block. */
export function phaseBlock() {
    return [phases('voltage'), phases('current'), phases('phasePower'), phases('phaseReactive')];
}
