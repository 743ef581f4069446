// Child process of settings-durability.test.ts: writes the pair (system.name, system.password)
// with protection on as versions k, k+1, ... through ConfigStore.apply, reporting each completed
// write on stdout, until the parent kills it with SIGKILL. The name lives in settings.json, the
// password in secrets.json: a torn pair would show different versions.
import { ConfigStore } from '../../src/config/config-store.js';
import { registerConfigFormats } from '../../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

const [stateDir, startText] = process.argv.slice(2);
const store = ConfigStore.load({ env: {}, stateDir: stateDir! });
for (let version = Number(startText); ; version += 1) {
  const result = store.apply(
    new Map<string, unknown>([
      ['system.name', `n${version}`],
      ['system.password', `p${version}`],
      ['system.protection', true],
    ]),
  );
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  process.stdout.write(`${version}\n`);
}
