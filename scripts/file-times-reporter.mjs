// A node:test reporter for scripts/run-tests.mjs: one JSON line per test file (its duration and
// whether it passed; node reports each file as a test named by its path) and one line with the
// run's summary counters (tests, pass, fail, skipped, ...). The runner reads them back to print the
// slowest files and the totals of both tiers.
export default async function* fileTimes(source) {
  const summary = {};
  for await (const event of source) {
    const data = event.data;
    if (event.type === 'test:complete' && data?.file && data.name === data.file) {
      const line = { file: data.file, ms: data.details.duration_ms, ok: data.details.passed };
      yield `${JSON.stringify(line)}\n`;
    } else if (event.type === 'test:diagnostic' && data?.nesting === 0 && !data.file) {
      const counter = /^(\w+) ([\d.]+)$/.exec(data.message);
      if (counter) summary[counter[1]] = Number(counter[2]);
    }
  }
  yield `${JSON.stringify({ summary })}\n`;
}
