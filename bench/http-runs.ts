/**
 * Ratios across several runs of bench/http-bench.sh (RUNS > 1), each run with fresh server processes.
 *
 *   node .tmp/bench-dist/bench/http-runs.js BASELINE FILE.tsv...
 *
 * Every FILE is the TSV of one run (the layout of the load-generator bench's summarize.mjs: variant, target,
 * rep, rate, ...). Per file the ratio is computed exactly as summarize.mjs does it (median rate of
 * the target / median rate of BASELINE in the same variant); this prints, per variant and target,
 * every run's ratio, their median and their spread. On a shared VM two identical node:http servers
 * started side by side differ by up to a third for the whole life of the processes, so one run's
 * ratio is one draw; the median over fresh processes is the number to compare with a target.
 */
import { readFileSync } from 'node:fs';

interface Row {
  variant: string;
  target: string;
  rate: number;
}

function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function rowsOf(file: string): Row[] {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const header = (lines.shift() ?? '').split('\t');
  const column = (name: string): number => {
    const at = header.indexOf(name);
    if (at < 0) throw new Error(`${file}: column ${name} missing`);
    return at;
  };
  const [variant, target, rate] = [column('variant'), column('target'), column('rate')];
  return lines.map((line) => {
    const fields = line.split('\t');
    return { variant: fields[variant]!, target: fields[target]!, rate: Number(fields[rate]) };
  });
}

/** variant -> target -> ratio of medians to the baseline, for one run. */
function ratiosOf(rows: readonly Row[], baseline: string): Map<string, Map<string, number>> {
  const rates = new Map<string, Map<string, number[]>>();
  for (const row of rows) {
    const byTarget = rates.get(row.variant) ?? new Map<string, number[]>();
    rates.set(row.variant, byTarget);
    byTarget.set(row.target, [...(byTarget.get(row.target) ?? []), row.rate]);
  }
  const ratios = new Map<string, Map<string, number>>();
  for (const [variant, byTarget] of rates) {
    const base = median(byTarget.get(baseline) ?? []);
    const ofVariant = new Map<string, number>();
    for (const [target, values] of byTarget) ofVariant.set(target, median(values) / base);
    ratios.set(variant, ofVariant);
  }
  return ratios;
}

const [baseline, ...files] = process.argv.slice(2);
if (!baseline || files.length === 0) {
  console.error('usage: node http-runs.js BASELINE FILE.tsv...');
  process.exit(2);
}

const runs = files.map((file) => ratiosOf(rowsOf(file), baseline));
const variants = [...new Set(runs.flatMap((run) => [...run.keys()]))].sort((a, b) =>
  a.localeCompare(b, 'en', { numeric: true }),
);
console.log(`| variant | target | ratio to ${baseline} per run | median | min..max |`);
console.log('|---|---|---|---:|---:|');
for (const variant of variants) {
  const targets = [...new Set(runs.flatMap((run) => [...(run.get(variant)?.keys() ?? [])]))];
  for (const target of targets.filter((name) => name !== baseline)) {
    const ratios = runs.map((run) => run.get(variant)?.get(target) ?? Number.NaN);
    const finite = ratios.filter(Number.isFinite);
    console.log(
      `| ${variant} | ${target} | ${ratios.map((ratio) => ratio.toFixed(2)).join(' ')} | ` +
        `${median(ratios).toFixed(2)} | ${Math.min(...finite).toFixed(2)}..${Math.max(...finite).toFixed(2)} |`,
    );
  }
}
console.log(
  `\n(${files.length} runs, each with fresh processes; per run the ratio of medians as summarize.mjs)`,
);
