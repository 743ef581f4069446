import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inverterListProblems } from '../../src/export-limiter/config-formats.js';
import { parseSource, SourceError } from '../../src/meter/source.js';
import { parseInverterSource } from '../../src/modbus-protocol/endpoint.js';
import { parseSerialEndpoint } from '../../src/modbus-protocol/serial-endpoint.js';

/**
 * One serial Modbus endpoint rule (docs/architecture.md#shared-rs485-bus): a `modbus-rtu:` meter
 * source and a `modbus-rtu:` inverter source take the same device paths, line settings and units,
 * and refuse the same ones with the same words.
 */

const TAKEN: ReadonlyArray<[string, { baudRate: number; parity: string; stopBits: number; unit: number }]> = [
  ['/dev/ttyUSB0', { baudRate: 9600, parity: 'none', stopBits: 1, unit: 1 }],
  [
    '/dev/ttyUSB0?baud=19200&unit=7&parity=even&stopbits=2',
    { baudRate: 19200, parity: 'even', stopBits: 2, unit: 7 },
  ],
  ['/dev/ttyAMA0?baud=1200&unit=247&databits=8', { baudRate: 1200, parity: 'none', stopBits: 1, unit: 247 }],
  [
    '/dev/ttyS1?baud=115200&data_bits=8&stop_bits=1&parity=odd',
    { baudRate: 115200, parity: 'odd', stopBits: 1, unit: 1 },
  ],
];

const REFUSED: ReadonlyArray<[string, RegExp]> = [
  ['ttyUSB0', /absolute device path/],
  ['/', /absolute device path/],
  ['/dev/tty\nUSB0', /absolute device path/],
  ['/dev/ttyUSB0?baud=300', /baud must be one of 1200, .*115200/],
  ['/dev/ttyUSB0?baud=14400', /baud must be one of/],
  ['/dev/ttyUSB0?baud=9600.0', /baud must be one of/],
  ['/dev/ttyUSB0?baud=', /baud must be one of/],
  ['/dev/ttyUSB0?databits=7', /8 data bits/],
  ['/dev/ttyUSB0?data_bits=9', /8 data bits/],
  ['/dev/ttyUSB0?parity=mark', /parity must be none, even or odd/],
  ['/dev/ttyUSB0?parity=EVEN', /parity must be none, even or odd/],
  ['/dev/ttyUSB0?stopbits=1.0', /stopbits must be 1 or 2/],
  ['/dev/ttyUSB0?stopbits=1.5', /stopbits must be 1 or 2/],
  ['/dev/ttyUSB0?unit=0', /unit must be the unit id 1\.\.247/],
  ['/dev/ttyUSB0?unit=248', /unit must be the unit id 1\.\.247/],
  ['/dev/ttyUSB0?unit=0x10', /unit must be the unit id 1\.\.247/],
  ['/dev/ttyUSB0?unit=1e1', /unit must be the unit id 1\.\.247/],
  ['/dev/ttyUSB0?BAUD=9600', /unknown parameter 'BAUD'/],
];

function meterProblem(rest: string): string | undefined {
  try {
    parseSource(`modbus-rtu:${rest}`);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof SourceError, String(error));
    return error.message;
  }
}

test('a modbus-rtu: meter and a modbus-rtu: inverter take the same line and unit', () => {
  for (const [rest, want] of TAKEN) {
    const path = rest.split('?')[0]!;
    const meter = parseSource(`modbus-rtu:${rest}`);
    assert.deepEqual(
      meter.kind === 'modbus-rtu'
        ? {
            path: meter.path,
            baudRate: meter.baudRate,
            parity: meter.parity,
            stopBits: meter.stopBits,
            unit: meter.unitId,
          }
        : meter,
      { path, ...want },
      `meter ${rest}`,
    );
    assert.deepEqual(
      parseInverterSource(`modbus-rtu:${rest}`),
      { kind: 'rtu', path, ...want },
      `inverter ${rest}`,
    );
  }
});

test('a modbus-rtu: meter and a modbus-rtu: inverter refuse the same sources, naming the problem', () => {
  for (const [rest, words] of REFUSED) {
    const shared = parseSerialEndpoint(rest);
    assert.ok(!shared.ok && words.test(shared.problem), `endpoint ${JSON.stringify(rest)}`);
    assert.match(meterProblem(rest) ?? 'taken', words, `meter ${JSON.stringify(rest)}`);
    assert.equal(parseInverterSource(`modbus-rtu:${rest}`), undefined, `inverter ${JSON.stringify(rest)}`);
    const problems = inverterListProblems([{ id: 'inv', source: `modbus-rtu:${rest}`, profile: 'sunspec' }]);
    assert.equal(problems.length, 1, `inverter setting ${JSON.stringify(rest)}`);
    assert.equal(problems[0]!.field, 'inverters[0].source');
    assert.match(problems[0]!.message, words, `inverter setting ${JSON.stringify(rest)}`);
  }
});

test('a meter keeps its own parameters; an inverter source refuses them', () => {
  const meter = parseSource('modbus-rtu:/dev/ttyUSB0?unit=2&profile=dtsu666&interval=5&baud=4800');
  assert.equal(meter.kind === 'modbus-rtu' && meter.profile, 'dtsu666');
  assert.equal(meter.kind === 'modbus-rtu' && meter.intervalMs, 5000);
  assert.match(meterProblem('/dev/ttyUSB0?profle=sdm630') ?? '', /did you mean 'profile'/);
  assert.equal(parseInverterSource('modbus-rtu:/dev/ttyUSB0?profile=sdm630'), undefined);
  const [problem] = inverterListProblems([
    { id: 'inv', source: 'modbus-rtu:/dev/ttyUSB0?profile=sdm630', profile: 'sunspec' },
  ]);
  assert.match(problem?.message ?? '', /unknown parameter 'profile'/);
});
