// The import rule: a module imports only from its own layer or a lower one, and a few folders
// of one layer keep apart from each other. The same table, with the reasons, is written down in
// docs/architecture.md (its layers and allowed imports); a change to one is a change to both.
// There is no list of exceptions: an import against the rule is moved, not excused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../helpers/environment.js';

/** The input side: the meter input and what it hands on (readings, settings). */
const inputFolders = ['src/meter/', 'src/reading/', 'src/config/'] as const;

/** The output folders of the domain layer. */
const domainOutputs = [
  'src/history/',
  'src/modbus/',
  'src/mqtt/',
  'src/device/',
  'src/actions/',
  'src/metrics/',
  'src/peak/',
  'src/prices/',
  'src/export-limiter/',
  'src/push/',
] as const;

/** Every output folder: the domain's outputs and the HTTP API and web UI that serve the readings. */
const outputFolders = [...domainOutputs, 'src/http/', 'src/web/'] as const;

/** Layers, lowest first. An entry ending in '/' is a folder (with everything under it), else one file. */
const layers: readonly { name: string; members: readonly string[] }[] = [
  {
    name: 'foundation',
    members: [
      'src/clock.ts',
      'src/log.ts',
      'src/log-transports.ts',
      'src/service.ts',
      'src/backoff.ts',
      'src/guarded-emitter.ts',
      'src/version.ts',
      'src/systemd-notify.ts',
      'src/outgoing.ts',
      'src/ascii-codes.ts',
      'src/refusals.ts',
      'src/slow-consumer.ts',
      'src/serial/',
      'src/checksum/',
      'src/digest/',
    ],
  },
  { name: 'contracts', members: ['src/contracts/'] },
  { name: 'config', members: ['src/config/'] },
  { name: 'reading', members: ['src/reading/'] },
  {
    name: 'context',
    members: [
      'src/context.ts',
      'src/system-id.ts',
      'src/output.ts',
      'src/output-runner.ts',
      'src/reconcile-queue.ts',
      'src/price-signal.ts',
    ],
  },
  { name: 'shared domain', members: ['src/modbus-protocol/'] },
  {
    name: 'domain',
    members: ['src/meter/', ...domainOutputs],
  },
  { name: 'http', members: ['src/http/'] },
  { name: 'web', members: ['src/web/'] },
  {
    name: 'wiring',
    members: [
      'src/daemon.ts',
      'src/daemon-services.ts',
      'src/config-formats.ts',
      'src/main.ts',
      'src/health-check.ts',
      'src/addon/',
    ],
  },
];

/**
 * Imports that the layer order alone would allow but that are forbidden: outputs depend on the
 * store, never on meter transports or parsers; an input never depends on an output (what both
 * need lies below them, in the shared domain layer).
 */
const forbidden: readonly { from: string; to: string; reason: string }[] = [
  ...domainOutputs.map((from) => ({
    from,
    to: 'src/meter/',
    reason: 'an output reads the store, not the meter',
  })),
  ...inputFolders.flatMap((from) =>
    outputFolders.map((to) => ({ from, to, reason: 'an input never imports an output' })),
  ),
];

/** Browser code, compiled on its own: it may share only types with the server side. */
const browserFolder = 'src/web/ui/';

interface ImportSite {
  file: string;
  target: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

function posix(path: string): string {
  return path.split(sep).join('/');
}

/** Every relative module specifier of one file: static imports, re-exports and import() calls. */
function importsOf(file: string, text = readFileSync(file, 'utf8')): ImportSite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const sites: ImportSite[] = [];
  const add = (specifier: ts.Expression | undefined, typeOnly: boolean): void => {
    if (!specifier || !ts.isStringLiteralLike(specifier) || !specifier.text.startsWith('.')) return;
    const target = resolve(dirname(file), specifier.text).replace(/\.js$/, '.ts');
    sites.push({
      file: posix(relative(repoRoot, file)),
      target: posix(relative(repoRoot, target)),
      typeOnly,
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, isTypeOnlyImport(node));
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // a side-effect import loads the module
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

function covers(member: string, path: string): boolean {
  return member.endsWith('/') ? path.startsWith(member) : path === member;
}

function layerOf(path: string): number {
  return layers.findIndex((layer) => layer.members.some((member) => covers(member, path)));
}

const files = sourceFiles(join(repoRoot, 'src'));
const sites = files.flatMap((file) => importsOf(file));

test('every source file belongs to a layer of the table', () => {
  const unplaced = files.map((file) => posix(relative(repoRoot, file))).filter((path) => layerOf(path) < 0);
  assert.deepEqual(
    unplaced,
    [],
    'files outside every layer (add them to the table and to docs/architecture.md)',
  );
});

/** The imports among `found` that run up the layers or into a forbidden folder, each with why. */
function violationsOf(found: readonly ImportSite[]): string[] {
  const violations: string[] = [];
  for (const site of found) {
    if (site.file.startsWith(browserFolder)) continue;
    const from = layerOf(site.file);
    const to = layerOf(site.target);
    if (to > from) {
      violations.push(`${site.file} -> ${site.target} (${layers[from]?.name} imports ${layers[to]?.name})`);
      continue;
    }
    const rule = forbidden.find(
      (entry) => site.file.startsWith(entry.from) && site.target.startsWith(entry.to),
    );
    if (rule) violations.push(`${site.file} -> ${site.target} (${rule.reason})`);
  }
  return violations;
}

test('imports point down the layers, never up and never into a forbidden folder', () => {
  const violations = violationsOf(sites);
  assert.deepEqual(violations, [], `imports against the layer rule:\n  ${violations.join('\n  ')}`);
});

test('an input module importing an output folder is refused, though both are domain folders', () => {
  const text = [
    "import { RtuSlave } from '../../modbus/rtu-slave.js';",
    "import type { Publisher } from '../../mqtt/publisher.js';",
    "import { sealFrame } from '../../modbus-protocol/rtu-frame.js';",
    "import { ReadingStore } from '../../reading/store.js';",
  ].join('\n');
  const planted = importsOf(join(repoRoot, 'src/meter/probe/example.ts'), text);
  assert.deepEqual(violationsOf(planted), [
    'src/meter/probe/example.ts -> src/modbus/rtu-slave.ts (an input never imports an output)',
    'src/meter/probe/example.ts -> src/mqtt/publisher.ts (an input never imports an output)',
  ]);
});

test('the browser code imports only types from the server side', () => {
  const violations = sites
    .filter((site) => site.file.startsWith(browserFolder) && !site.target.startsWith(browserFolder))
    .filter((site) => !site.typeOnly)
    .map((site) => `${site.file} -> ${site.target} (not a type-only import)`);
  assert.deepEqual(violations, [], `browser code loading server modules:\n  ${violations.join('\n  ')}`);
});

test('the import reader sees static, re-exported, dynamic and type imports', () => {
  const text = [
    "import { a } from '../reading/store.js';",
    "import type { B } from '../config/types.js';",
    "import { type C, type D } from './c.js';",
    "import { type E, f } from './e.js';",
    "export { g } from '../http/router.js';",
    "export type { H } from '../mqtt/h.js';",
    "import './side-effect.js';",
    "import { external } from 'node:fs';",
    "const later = async () => await import('../device/mdns.js');",
    "let x: import('../history/record.js').Record;",
  ].join('\n');
  const read = importsOf(join(repoRoot, 'src/meter/example.ts'), text).map(
    (site) => `${site.target}${site.typeOnly ? ' (type)' : ''}`,
  );
  assert.deepEqual(read, [
    'src/reading/store.ts',
    'src/config/types.ts (type)',
    'src/meter/c.ts (type)',
    'src/meter/e.ts',
    'src/http/router.ts',
    'src/mqtt/h.ts (type)',
    'src/meter/side-effect.ts',
    'src/device/mdns.ts',
    'src/history/record.ts (type)',
  ]);
  assert.ok(sites.length > 300, `only ${sites.length} imports read from ${files.length} files`);
});

/** The room an import counts for: a folder directly under src/ (with everything under it), or a top-level file. */
function roomOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : path;
}

/** Pairs of rooms that import each other, each with one import of either direction. */
function mutualRooms(found: readonly ImportSite[]): string[] {
  const edges = new Map<string, ImportSite>();
  for (const site of found) {
    if (site.file.startsWith(browserFolder)) continue;
    const from = roomOf(site.file);
    const to = roomOf(site.target);
    if (from !== to && !edges.has(`${from} ${to}`)) edges.set(`${from} ${to}`, site);
  }
  const pairs: string[] = [];
  for (const [key, site] of edges) {
    const [from, to] = key.split(' ');
    const back = edges.get(`${to} ${from}`);
    if (back && from! < to!) pairs.push(`${site.file} -> ${site.target} and ${back.file} -> ${back.target}`);
  }
  return pairs;
}

test('no two folders of src/ import each other, so every folder stands above all it imports', () => {
  const pairs = mutualRooms(sites);
  assert.deepEqual(pairs, [], `folders importing each other:\n  ${pairs.join('\n  ')}`);
});

test('two domain folders importing each other are found, though the layer rule allows both imports', () => {
  const planted = [
    ...importsOf(join(repoRoot, 'src/actions/example.ts'), "import type { X } from '../prices/x.js';"),
    ...importsOf(join(repoRoot, 'src/prices/example.ts'), "import { y } from '../actions/y.js';"),
  ];
  assert.deepEqual(violationsOf(planted), []);
  assert.deepEqual(mutualRooms(planted), [
    'src/actions/example.ts -> src/prices/x.ts and src/prices/example.ts -> src/actions/y.ts',
  ]);
});

/** Groups of files that import each other in a loop (Tarjan's strongly connected components of two or more files). */
function importLoops(found: readonly ImportSite[]): string[][] {
  const next = new Map<string, string[]>();
  for (const site of found) next.set(site.file, [...(next.get(site.file) ?? []), site.target]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const loop: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      loop.push(member);
    } while (member !== file);
    if (loop.length > 1) loops.push(loop.sort());
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return loops;
}

test('no source files import each other in a loop, type imports included', () => {
  const loops = importLoops(sites).map((loop) => loop.join(' -> '));
  assert.deepEqual(loops, [], `import loops:\n  ${loops.join('\n  ')}`);
});

test('an import loop through a type import is found', () => {
  const planted = [
    ...importsOf(join(repoRoot, 'src/peak/a.ts'), "import type { B } from './b.js';"),
    ...importsOf(join(repoRoot, 'src/peak/b.ts'), "import { c } from './c.js';"),
    ...importsOf(join(repoRoot, 'src/peak/c.ts'), "import type { A } from './a.js';"),
  ];
  assert.deepEqual(importLoops(planted), [['src/peak/a.ts', 'src/peak/b.ts', 'src/peak/c.ts']]);
});
