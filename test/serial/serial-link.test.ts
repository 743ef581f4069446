// A serial device that is not there: one "cannot open" (the caller's), the adapters present, the probe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openError, SerialLink } from '../../src/serial/serial-link.js';

const ENOENT = new Error('Error: No such file or directory, cannot open /dev/ttyUSB0');

test('a missing device lists the adapters in /dev/serial/by-id and points to the probe', () => {
  const byId = mkdtempSync(join(tmpdir(), 'mg-by-id-'));
  try {
    writeFileSync(join(byId, 'usb-FTDI_FT232R_USB_UART_A10K1ABC-if00-port0'), '');
    writeFileSync(join(byId, 'usb-Prolific_PL2303-if00-port0'), '');
    const error = openError('/dev/ttyUSB0', ENOENT, byId);
    assert.equal(
      error.message,
      `no such device; serial adapters present: ${join(byId, 'usb-FTDI_FT232R_USB_UART_A10K1ABC-if00-port0')}, ${join(byId, 'usb-Prolific_PL2303-if00-port0')}; find the meter's port and settings with 'meter-gateway probe ${join(byId, 'usb-FTDI_FT232R_USB_UART_A10K1ABC-if00-port0')}' (or the Meter tab's probe in the web interface)`,
    );
    assert.equal(error.cause, ENOENT);
  } finally {
    rmSync(byId, { recursive: true, force: true });
  }
});

test('with no adapter plugged in it says so; other failures keep their reason without the repeated path', () => {
  const none = mkdtempSync(join(tmpdir(), 'mg-no-by-id-'));
  try {
    const missing = join(none, 'by-id');
    assert.match(
      openError('/dev/ttyUSB0', ENOENT, missing).message,
      new RegExp(
        `^no such device; no USB serial adapter present \\(${missing} is empty\\); .*meter-gateway probe <device>`,
      ),
    );
    mkdirSync(missing);
    assert.match(openError('/dev/ttyUSB0', ENOENT, missing).message, /no USB serial adapter present/);
  } finally {
    rmSync(none, { recursive: true, force: true });
  }
  const busy = new Error(
    'Error: Resource temporarily unavailable Cannot lock port, cannot open /dev/ttyUSB0',
  );
  assert.equal(openError('/dev/ttyUSB0', busy).message, 'Resource temporarily unavailable Cannot lock port');
});

test('SerialLink.open of a device that does not exist rejects with the one message', async () => {
  await assert.rejects(
    SerialLink.open('/nonexistent-mg/ttyUSB9', {
      baudRate: 115200,
      dataBits: 8,
      parity: 'none',
      stopBits: 1,
    }),
    (error: Error) => /^no such device; /.test(error.message) && !/cannot open/.test(error.message),
  );
});
