// Preloaded into every test process by scripts/run-tests.mjs (`--import`): gives each `test()` and
// `it()` that sets no `timeout` of its own the default deadline, so a stalled test fails with
// "test timed out" instead of hanging the run. Node's own `--test-timeout` cannot do this on Node 20:
// there it bounds each test file's process as a whole, and the test processes ignore it.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const DEFAULT_TIMEOUT_MS = Number(process.env.TEST_TIMEOUT_MS ?? 60_000);

const nodeTest = createRequire(import.meta.url)('node:test');

/** `test([name][, options][, fn])` with `timeout` filled in when the options do not set it. */
function withDeadline(define) {
  const defineWithDeadline = function (...args) {
    const at = args.findIndex((arg) => typeof arg === 'object' && arg !== null);
    if (at === -1) args.splice(typeof args[0] === 'string' ? 1 : 0, 0, { timeout: DEFAULT_TIMEOUT_MS });
    else if (args[at].timeout === undefined) args[at] = { ...args[at], timeout: DEFAULT_TIMEOUT_MS };
    return define.apply(this, args);
  };
  // test.skip, test.todo, test.only, test.mock ... stay reachable.
  return Object.assign(defineWithDeadline, define);
}

nodeTest.test = withDeadline(nodeTest.test);
nodeTest.it = withDeadline(nodeTest.it);
// The named exports of the built-in ESM module follow the CommonJS object.
syncBuiltinESMExports();
