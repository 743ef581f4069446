/** One measured subject of a parse benchmark (DSMR, SML, D0), all measured in the same run. */
export interface BenchRow {
  /** What was measured, e.g. "SML HOLLEY_DTZ541-ZDBA.bin (528 B), 16-byte chunks". */
  benchmark: string;
  /** Who was measured: "meter-gateway", "smartmeter-obis", "dsmr-parser" ... */
  subject: string;
  /** Median throughput per CPU second. */
  value: number;
  unit: string;
  /** meter-gateway's median divided by this subject's, same benchmark and run (1 for meter-gateway). */
  ratio?: number;
  /** Spread of the repetitions ("min..max") or why a subject could not be measured. */
  note?: string;
}

/** The table `npm run bench` prints: one line per subject, grouped per benchmark, rate and ratio aligned. */
export function formatBenchTable(rows: readonly BenchRow[], rateLabel: string): string {
  const width = Math.max(40, ...rows.map((row) => row.benchmark.length + 2));
  const columns = (benchmark: string, subject: string, value: string, ratio: string, note: string) =>
    `${benchmark.padEnd(width)}${subject.padEnd(24)}${value.padStart(16)}${ratio.padStart(18)}   ${note}`;
  const lines = [columns('benchmark', 'subject', `${rateLabel}/CPU-s`, 'meter-gateway x', 'runs min..max')];
  let previous = '';
  for (const row of rows) {
    const value = Number.isNaN(row.value) ? 'n/a' : Math.round(row.value).toString();
    const ratio = row.ratio === undefined || Number.isNaN(row.ratio) ? '' : `${row.ratio.toFixed(1)}x`;
    lines.push(
      columns(row.benchmark === previous ? '' : row.benchmark, row.subject, value, ratio, row.note ?? ''),
    );
    previous = row.benchmark;
  }
  return lines.join('\n');
}
