// `node dist/bench/heap-diff.js A.heapsnapshot B.heapsnapshot [ROWS]`: what grew in the V8 heap between
// two snapshots of one process, e.g. a soaking daemon (`NODE_FLAGS="--heapsnapshot-signal=SIGUSR2
// --diagnostic-dir=DIR" npm run bench:rss -- --soak 30`, then `kill -USR2 <daemon pid>` twice, some
// minutes apart; a snapshot leaves the process with tens of MB more resident memory, so that run's
// RSS no longer counts). Prints the count and self size per node type and constructor, the largest
// growth first, and splits the growth into compiled code with its metadata (V8's "code" nodes:
// machine code, deoptimization data, feedback vectors, bytecode) and everything else: JavaScript
// objects kept per request or per run show in the second part. Optimized code (code nodes with
// deoptimization data) is counted on its own: a function reaching V8's optimizing tier adds one.
import { readFileSync } from 'node:fs';

/** The parts of the .heapsnapshot JSON format (V8's HeapSnapshotJSONSerializer) read here. */
interface Snapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Totals {
  /** "type | constructor" -> [count, self size] */
  groups: Map<string, [number, number]>;
  codeBytes: number;
  otherBytes: number;
  optimizedCode: number;
}

/** Strings are grouped as one: their text is data, not a constructor. */
const TEXT_TYPES = new Set(['string', 'concatenated string', 'sliced string']);

function totalsOf(file: string): Totals {
  const heap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const { meta } = heap.snapshot;
  const width = meta.node_fields.length;
  const edgeWidth = meta.edge_fields.length;
  const typeAt = meta.node_fields.indexOf('type');
  const nameAt = meta.node_fields.indexOf('name');
  const sizeAt = meta.node_fields.indexOf('self_size');
  const edgeCountAt = meta.node_fields.indexOf('edge_count');
  const edgeTypeAt = meta.edge_fields.indexOf('type');
  const edgeNameAt = meta.edge_fields.indexOf('name_or_index');
  const namedEdge = new Set(['context', 'property', 'internal', 'shortcut', 'weak']);
  const totals: Totals = { groups: new Map(), codeBytes: 0, otherBytes: 0, optimizedCode: 0 };
  let edge = 0;
  for (let node = 0; node < heap.nodes.length; node += width) {
    const type = meta.node_types[0][heap.nodes[node + typeAt]!]!;
    const name = TEXT_TYPES.has(type) ? '' : heap.strings[heap.nodes[node + nameAt]!]!.slice(0, 80);
    const size = heap.nodes[node + sizeAt]!;
    const key = `${type} | ${name}`;
    const group = totals.groups.get(key) ?? [0, 0];
    group[0] += 1;
    group[1] += size;
    totals.groups.set(key, group);
    if (type === 'code') totals.codeBytes += size;
    else totals.otherBytes += size;
    const edges = heap.nodes[node + edgeCountAt]! * edgeWidth;
    if (type === 'code') {
      for (let at = edge; at < edge + edges; at += edgeWidth) {
        const edgeType = meta.edge_types[0][heap.edges[at + edgeTypeAt]!]!;
        if (namedEdge.has(edgeType) && heap.strings[heap.edges[at + edgeNameAt]!] === 'deoptimization_data')
          totals.optimizedCode += 1;
      }
    }
    edge += edges;
  }
  return totals;
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(2)} MB`;
const signed = (value: number) => (value > 0 ? `+${value}` : String(value));

function main(): void {
  const [before, after, rows = '30'] = process.argv.slice(2);
  if (!before || !after) {
    console.error('usage: node dist/bench/heap-diff.js A.heapsnapshot B.heapsnapshot [ROWS]');
    process.exit(2);
  }
  const a = totalsOf(before);
  const b = totalsOf(after);
  console.log(
    `self size ${mb(a.codeBytes + a.otherBytes)} -> ${mb(b.codeBytes + b.otherBytes)}: ` +
      `code and its metadata ${mb(a.codeBytes)} -> ${mb(b.codeBytes)}, ` +
      `everything else ${mb(a.otherBytes)} -> ${mb(b.otherBytes)}; ` +
      `optimized code objects ${a.optimizedCode} -> ${b.optimizedCode}`,
  );
  const keys = new Set([...a.groups.keys(), ...b.groups.keys()]);
  const growth = [...keys].map((key) => {
    const [countA, sizeA] = a.groups.get(key) ?? [0, 0];
    const [countB, sizeB] = b.groups.get(key) ?? [0, 0];
    return { key, countA, countB, size: sizeB - sizeA };
  });
  growth.sort((x, y) => y.size - x.size);
  console.log('   bytes   count  (before -> after)  type | constructor');
  for (const row of growth.slice(0, Number(rows))) {
    console.log(
      `${signed(row.size).padStart(8)} ${signed(row.countB - row.countA).padStart(7)}  ` +
        `(${row.countA} -> ${row.countB})  ${row.key}`,
    );
  }
}

main();
