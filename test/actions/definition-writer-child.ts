// Child process of definition-durability.test.ts: stores actions definitions whose one action is
// `v<k>`, k = start, start+1, ... through ConfigStore.apply, reporting each completed write on
// stdout, until the parent kills it with SIGKILL.
import { ConfigStore } from '../../src/config/config-store.js';
import { registerConfigFormats } from '../../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

const [stateDir, startText] = process.argv.slice(2);
const store = ConfigStore.load({ env: {}, stateDir: stateDir! });
for (let version = Number(startText); ; version += 1) {
  const definition = {
    const: { n: version },
    actions: [{ id: `v${version}`, requests: [{ http: { url: 'http://127.0.0.1/${const.n}' } }] }],
  };
  const result = store.apply(new Map<string, unknown>([['actions.definition', definition]]));
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  process.stdout.write(`${version}\n`);
}
