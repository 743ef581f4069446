/**
 * Serial device paths (the probe's device, meter.source `serial:PATH`, services.modbus_rtu.device)
 * are absolute and free of control characters: a relative path depends on the daemon's working
 * directory, and a NUL ends the path where the kernel reads it (so `/dev/ttyUSB0` + NUL would name
 * the meter's own port while comparing unequal to it) while a newline would forge log lines.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export const DEVICE_PATH_RULE = 'an absolute device path like /dev/ttyUSB0, without control characters';

/** Whether `path` is a usable serial device path (see DEVICE_PATH_RULE). */
export function isDevicePath(path: string): boolean {
  return path.startsWith('/') && !CONTROL.test(path);
}

/** The same rule as a pattern, for a config schema entry. */
// eslint-disable-next-line no-control-regex
export const DEVICE_PATH_PATTERN = /^\/[^\u0000-\u001f\u007f]*$/;
