export const PHASES = [1, 2, 3].map((n) => {
    const base = 20 * n;
    return {
        line: `l${n}`,
        current: `${base + 11}.7.0`,
        voltage: `${base + 12}.7.0`,
        activeImport: `${base + 1}.7.0`,
        activeExport: `${base + 2}.7.0`,
        reactiveImport: `${base + 3}.7.0`,
        reactiveExport: `${base + 4}.7.0`,
    };
});
/**
 * The one signed-current rule (Modbus register id `current.lN`, MQTT template `s31_7_0`): the magnitude
 * of the phase current, negative while the phase exports, i.e. its export power exceeds its import
 * power. A meter that sends the current already signed gives the same result (only the magnitude
 * is used); undefined when the meter sent no current for the phase.
 */
export function signedCurrent(values, phase) {
    const current = values.get(phase.current)?.value;
    if (current === undefined)
        return undefined;
    const exporting = (values.get(phase.activeExport)?.value ?? 0) > (values.get(phase.activeImport)?.value ?? 0);
    return exporting ? -Math.abs(current) : Math.abs(current);
}
