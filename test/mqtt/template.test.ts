import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate, renderTemplate } from '../../src/reading/template.js';
import { buildTemplateVariables, type TemplateValue } from '../../src/reading/template-variables.js';
import { valuesOf } from '../../src/reading/reading.js';

const vars = new Map<string, TemplateValue>([
  ['1_8_0', 18734.512],
  ['1_7_0', 2.412],
  ['2_7_0', 0],
  ['21_7_0', -0],
  ['s31_7_0', -4.31],
  ['3_7_0', null],
  ['big', 1e21],
  ['tiny', 1.5e-7],
  ['nan', Number.NaN],
  ['inf', Number.POSITIVE_INFINITY],
  ['sys.id', 'ECC9FF5C7F14'],
  ['meter.id', 'E0047000123456789'],
  ['quote', 'a"b\\c'],
  ['vol[0].cumulative', 4521.338],
  ['wifi.ssid', 'Zürich-Gäste 📶'],
  ['empty', ''],
]);

const cases: Array<[string, string, string]> = [
  ['number as JSON number', '{"E":${1_8_0}}', '{"E":18734.512}'],
  ['zero stays 0', '${2_7_0}', '0'],
  ['negative zero renders as 0', '${21_7_0}', '0'],
  ['negative number', '${s31_7_0}', '-4.31'],
  ['missing numeric value is null', '{"Q":${3_7_0}}', '{"Q":null}'],
  ['large number in exponent form (valid JSON)', '${big}', '1e+21'],
  ['small number in exponent form', '${tiny}', '1.5e-7'],
  ['NaN renders as null', '${nan}', 'null'],
  ['Infinity renders as null', '${inf}', 'null'],
  ['string verbatim inside template quotes', '"${sys.id}"', '"ECC9FF5C7F14"'],
  ['string verbatim without quotes', '${sys.id}', 'ECC9FF5C7F14'],
  ['string not escaped (template owns quoting)', '"${quote}"', '"a"b\\c"'],
  ['empty string', '"${empty}"', '""'],
  ['adjacent variables', '${1_7_0}${2_7_0}${sys.id}', '2.4120ECC9FF5C7F14'],
  ['indexed name', '${vol[0].cumulative}', '4521.338'],
  ['unknown name stays literal', '{"X":${foo_bar}}', '{"X":${foo_bar}}'],
  ['unknown indexed name stays literal', '${vol[7].cumulative}', '${vol[7].cumulative}'],
  ['dollar without brace', 'cost $5 and $$ ${1_7_0}', 'cost $5 and $$ 2.412'],
  ['dollar directly before a variable', '$${1_7_0}', '$2.412'],
  ['unterminated placeholder', '{"E":${1_8_0', '{"E":${1_8_0'],
  ['unterminated after a good one', '${1_7_0}-${1_8_0', '2.412-${1_8_0'],
  ['empty name', '${}', '${}'],
  ['space in name', '${1_8_0 }', '${1_8_0 }'],
  ['nested braces keep the outer text', '${${1_7_0}}', '${2.412}'],
  ['brace right after ${', '${{1_7_0}}', '${{1_7_0}}'],
  ['JSON braces around variables', '{"a":{"b":${1_7_0}}}', '{"a":{"b":2.412}}'],
  ['unicode text around variables', '{"Zähler ⚡":${1_7_0},"ok":"✓"}', '{"Zähler ⚡":2.412,"ok":"✓"}'],
  ['unicode value inserted verbatim', '"${wifi.ssid}"', '"Zürich-Gäste 📶"'],
  ['unicode in a name is not a placeholder', '${zähler}', '${zähler}'],
  ['empty template', '', ''],
  ['no placeholders', 'plain text', 'plain text'],
  ['lone ${ at the end', 'x${', 'x${'],
];

for (const [name, template, expected] of cases) {
  test(`template: ${name}`, () => {
    assert.equal(renderTemplate(template, vars), expected);
  });
}

test('template: byte-exact UTF-8 output', () => {
  const out = renderTemplate('{"n":"${wifi.ssid}","v":${1_7_0}}', vars);
  assert.deepEqual(
    Buffer.from(out, 'utf8'),
    Buffer.concat([
      Buffer.from('{"n":"Z'),
      Buffer.from([0xc3, 0xbc]),
      Buffer.from('rich-G'),
      Buffer.from([0xc3, 0xa4]),
      Buffer.from('ste '),
      Buffer.from([0xf0, 0x9f, 0x93, 0xb6]),
      Buffer.from('","v":2.412}'),
    ]),
  );
});

test('template: compiled template lists its names and renders the same each time', () => {
  const compiled = compileTemplate('${1_7_0} ${sys.id} ${1_7_0} ${nope}');
  assert.deepEqual(compiled.names, ['1_7_0', 'sys.id', 'nope']);
  assert.equal(compiled.render(vars), '2.412 ECC9FF5C7F14 2.412 ${nope}');
  assert.equal(compiled.render(new Map([['1_7_0', 1]])), '1 ${sys.id} 1 ${nope}');
});

test('template: the real device template with buildTemplateVariables gives valid JSON', () => {
  const variables = buildTemplateVariables({
    reading: {
      receivedAt: Date.UTC(2026, 10, 21, 12, 0, 0),
      protocol: 'DSMR',
      identity: {},
      values: valuesOf({ '1.7.0': [2.412, 'kW'], '1.8.0': [18734.512, 'kWh'] }),
      mbus: [],
    },
    meter: { status: 'OK', interface: 'P1', identity: {} },
    system: { id: 'ECC9FF5C7F14', model: 'm', firmware: '1', bootId: 'b', bootTime: 0 },
    systemName: 'gw',
    convFactor: 1,
    wifi: {},
    now: Date.UTC(2026, 10, 21, 12, 0, 0),
  });
  const out = renderTemplate(
    '{"P_In": ${1_7_0}, "P_Out": ${2_7_0}, "E_In": ${1_8_0}, "Sys": {"Id": "${sys.id}"}}',
    variables,
  );
  assert.equal(out, '{"P_In": 2.412, "P_Out": null, "E_In": 18734.512, "Sys": {"Id": "ECC9FF5C7F14"}}');
  assert.deepEqual(JSON.parse(out), {
    P_In: 2.412,
    P_Out: null,
    E_In: 18734.512,
    Sys: { Id: 'ECC9FF5C7F14' },
  });
});
