import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { silentLogger } from '../helpers/log-lines.js';
import { tempDir } from '../helpers/temp-dir.js';

// An inverter on an RS485 adapter is a unit on the same bus as the meters there
// (docs/architecture.md#shared-rs485-bus): a unit id a meter polls, other line settings or a serial
// meter on that device are refused on services.export_limiter.inverters, naming both settings.

registerConfigFormats();

const METER = 'modbus-rtu:/dev/ttyUSB0?unit=1&baud=9600';
const inverter = (source: string) => [{ id: 'pv1', source, profile: 'sunspec' }];

test("an inverter on a meter's unit, on other line settings or on a serial meter's device is refused", (t) => {
  const ctx = createAppContext({ stateDir: tempDir('mg-bus-claims-', t), logger: silentLogger() });
  const write = (changes: Array<[string, unknown]>) => ctx.config.apply(new Map(changes));
  const meters = [{ id: 'grid2', name: 'Grid', role: 'grid', source: METER }];
  assert.ok(write([['meters', meters]]).ok);

  const messages = (result: ReturnType<typeof write>) =>
    result.ok ? [] : result.issues.map((issue) => `${issue.field}: ${issue.message}`);
  assert.deepEqual(
    messages(
      write([['services.export_limiter.inverters', inverter('modbus-rtu:/dev/ttyUSB0?unit=1&baud=9600')]]),
    ),
    [
      'services.export_limiter.inverters: services.export_limiter.inverters[0].source and meters[0].source both use unit 1 on /dev/ttyUSB0',
    ],
  );
  assert.match(
    messages(
      write([['services.export_limiter.inverters', inverter('modbus-rtu:/dev/ttyUSB0?unit=2&baud=19200')]]),
    ).join(),
    /inverters\[0\]\.source \(19200 baud.*meters\[0\]\.source \(9600 baud.*different line settings/,
  );
  // Another unit on the same line: one bus, two units.
  assert.ok(
    write([['services.export_limiter.inverters', inverter('modbus-rtu:/dev/ttyUSB0?unit=2&baud=9600')]]).ok,
  );
  // Then the meter cannot move onto the inverter's unit either.
  const moved = [{ ...meters[0], source: 'modbus-rtu:/dev/ttyUSB0?unit=2&baud=9600' }];
  assert.match(messages(write([['meters', moved]])).join(), /both use unit 2 on \/dev\/ttyUSB0/);
  // A P1 meter on the device an inverter wants: one opener only.
  assert.ok(write([['services.export_limiter.inverters', []]]).ok);
  assert.ok(write([['meter.source', 'serial:/dev/ttyUSB1']]).ok);
  assert.match(
    messages(
      write([['services.export_limiter.inverters', inverter('modbus-rtu:/dev/ttyUSB1?unit=3&baud=9600')]]),
    ).join(),
    /inverters\[0\]\.source and meter\.source both open \/dev\/ttyUSB1; only modbus-rtu: sources share a port/,
  );
});
