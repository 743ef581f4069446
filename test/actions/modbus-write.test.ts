import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requirePeer } from '../helpers/environment.js';
import { hasPymodbus, readBack, startActionsRig, startModbusSlave } from './rig.js';

/** Every type with a value and the registers it must give, high word first. */
const CASES = [
  { type: 'hex', value: '0xBEEF', words: [0xbeef] },
  { type: 'short', value: '-2', words: [0xfffe] },
  { type: 'int', value: '-100000', words: [0xfffe, 0x7960] },
  { type: 'long', value: '1234567890123', words: [0x0000, 0x011f, 0x71fb, 0x04cb] },
  { type: 'float', value: '1.5', words: [0x3fc0, 0x0000] },
  { type: 'double', value: '-2.25', words: [0xc002, 0x0000, 0x0000, 0x0000] },
] as const;

function bitsOf(words: readonly number[]): boolean[] {
  return words.flatMap((word) => Array.from({ length: 16 }, (_, bit) => ((word >> bit) & 1) === 1));
}

test(
  'FC 5, 6, 15 and 16 writes of every type reach a real Modbus TCP slave',
  { timeout: 120_000 },
  async (t) => {
    if (!requirePeer(t, await hasPymodbus(), 'python3 with pymodbus (python3-pymodbus)')) return;
    const slave = await startModbusSlave();
    const rig = await startActionsRig();
    try {
      const actions = CASES.flatMap((entry, index) => {
        const modbus = {
          host: '127.0.0.1',
          port: slave.port,
          unit_id: 1,
          type: entry.type,
          value: entry.value,
        };
        const base = index * 20;
        const list = [
          { id: `c5-${entry.type}`, requests: [{ modbus: { ...modbus, func: 5, address: index } }] },
          {
            id: `c15-${entry.type}`,
            requests: [{ modbus: { ...modbus, func: 15, address: 100 + base / 2 } }],
          },
          { id: `r16-${entry.type}`, requests: [{ modbus: { ...modbus, func: 16, address: base } }] },
        ];
        if (entry.words.length === 1)
          list.push({
            id: `r6-${entry.type}`,
            requests: [{ modbus: { ...modbus, func: 6, address: base + 10 } }],
          });
        return list;
      });
      const answer = await rig.post({ actions });
      assert.equal(answer.status, 200, await answer.text());
      for (const [index, entry] of CASES.entries()) {
        const base = index * 20;
        assert.equal((await rig.callAndWait(`r16-${entry.type}`)).code, 1);
        assert.deepEqual(
          await readBack(slave.port, 'hr', base, entry.words.length),
          [...entry.words],
          `FC 16 ${entry.type}`,
        );
        if (entry.words.length === 1) {
          assert.equal((await rig.callAndWait(`r6-${entry.type}`)).code, 1);
          assert.deepEqual(
            await readBack(slave.port, 'hr', base + 10, 1),
            [...entry.words],
            `FC 6 ${entry.type}`,
          );
        }
        assert.equal((await rig.callAndWait(`c5-${entry.type}`)).code, 1);
        assert.deepEqual(await readBack(slave.port, 'co', index, 1), [true], `FC 5 ${entry.type}`);
        assert.equal((await rig.callAndWait(`c15-${entry.type}`)).code, 1);
        const bits = bitsOf(entry.words);
        assert.deepEqual(
          await readBack(slave.port, 'co', 100 + base / 2, bits.length),
          bits,
          `FC 15 ${entry.type}`,
        );
      }
    } finally {
      await rig.close();
      await slave.stop();
    }
  },
);

test('a Modbus exception and a closed port give their negative codes', async (t) => {
  if (!requirePeer(t, await hasPymodbus(), 'python3 with pymodbus (python3-pymodbus)')) return;
  const slave = await startModbusSlave();
  const rig = await startActionsRig();
  try {
    await rig.post({
      actions: [
        {
          id: 'beyond',
          requests: [
            {
              modbus: {
                host: '127.0.0.1',
                port: slave.port,
                func: 16,
                address: 500,
                type: 'short',
                value: '1',
              },
            },
          ],
        },
        {
          id: 'closed',
          requests: [{ modbus: { host: '127.0.0.1', port: 1, func: 6, address: 0, value: '1' } }],
        },
      ],
    });
    // Modbus Application Protocol §7: exception 2, illegal data address -> -102.
    assert.equal((await rig.callAndWait('beyond')).code, -102);
    // The device's table: -17 "Cannot connect".
    assert.equal((await rig.callAndWait('closed')).code, -17);
  } finally {
    await rig.close();
    await slave.stop();
  }
});
