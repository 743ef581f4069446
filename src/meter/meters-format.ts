import { jsonValueFormat, registerFormats, rejectProblems } from '../config/formats.js';
import { registerRules, type ConfigRule } from '../config/rules.js';
import type { ValidationIssue } from '../config/validation.js';
import { getPath } from '../config/paths.js';
import {
  isVirtualEntry,
  MAIN_METER_ID,
  METER_ID_PATTERN,
  METER_ROLES,
  type MeterEntry,
} from '../reading/meter-entries.js';
import { ExpressionError, parseExpression } from '../reading/meter-expression.js';
import { parseSource, SourceError, type MeterSource } from './source.js';
import { portProblems, type PortClaim } from '../modbus-protocol/port-claims.js';
import { parseInverterSource } from '../modbus-protocol/endpoint.js';

declare module '../config/formats.js' {
  interface FormatTypes {
    /** `meters[]`: the further meters (docs/architecture.md#several-meters). */
    'meters-list': MeterEntry[];
  }
}

const MAX_METERS = 32;
const NAME_MAX = 64;
const POLLED_KEYS = new Set(['id', 'name', 'role', 'source', 'timeout']);
const VIRTUAL_KEYS = new Set(['id', 'name', 'role', 'expression']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What is wrong with one entry on its own (shape, id, name, role, source or expression syntax). */
function entryProblems(entry: unknown, at: string): string[] {
  if (!isObject(entry)) return [`${at}: must be an object`];
  const problems: string[] = [];
  const virtual = 'expression' in entry;
  if (virtual && 'source' in entry) problems.push(`${at}: has both source and expression (one of them)`);
  if (!virtual && !('source' in entry))
    problems.push(`${at}: needs a source (polled) or an expression (virtual)`);
  for (const key of Object.keys(entry)) {
    if (!(virtual ? VIRTUAL_KEYS : POLLED_KEYS).has(key)) problems.push(`${at}.${key}: unknown key`);
  }
  const { id, name, role } = entry;
  if (typeof id !== 'string' || !METER_ID_PATTERN.test(id))
    problems.push(`${at}.id: must match ${METER_ID_PATTERN.source}`);
  else if (id === MAIN_METER_ID)
    problems.push(`${at}.id: "main" is reserved for the primary meter (meter.*)`);
  if (typeof name !== 'string' || name.trim() === '' || [...name].length > NAME_MAX)
    problems.push(`${at}.name: must be a string of 1..${NAME_MAX} characters`);
  if (typeof role !== 'string' || !(METER_ROLES as readonly string[]).includes(role))
    problems.push(`${at}.role: must be one of ${METER_ROLES.join(', ')}`);
  if (virtual) problems.push(...expressionProblems(entry.expression, at));
  else problems.push(...sourceProblems(entry, at));
  return problems;
}

function expressionProblems(expression: unknown, at: string): string[] {
  if (typeof expression !== 'string' || expression.length > 256)
    return [`${at}.expression: must be a string of at most 256 characters`];
  try {
    parseExpression(expression);
    return [];
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    return [`${at}.expression: ${error.message}`];
  }
}

function sourceProblems(entry: Record<string, unknown>, at: string): string[] {
  const problems: string[] = [];
  const { source, timeout } = entry;
  if (
    timeout !== undefined &&
    (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1 || timeout > 3600)
  )
    problems.push(`${at}.timeout: must be an integer in 1..3600 (seconds)`);
  if (typeof source !== 'string' || source.length > 1024) {
    problems.push(`${at}.source: must be a string of at most 1024 characters`);
    return problems;
  }
  try {
    parseSource(source);
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    problems.push(`${at}.source: ${error.reason}`);
  }
  return problems;
}

/** Ids named twice; expressions naming unknown meters, themselves, or a cycle of virtual meters. */
function setProblems(entries: readonly MeterEntry[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  entries.forEach((entry, index) => {
    const first = seen.get(entry.id);
    if (first !== undefined)
      problems.push(`meters[${index}].id: "${entry.id}" is already the id of meters[${first}]`);
    else seen.set(entry.id, index);
  });
  const known = new Set([MAIN_METER_ID, ...seen.keys()]);
  const graph = new Map<string, string[]>();
  entries.forEach((entry, index) => {
    if (!isVirtualEntry(entry)) return;
    const ids = parseExpression(entry.expression).map((term) => term.id);
    for (const id of ids) {
      if (id === entry.id) problems.push(`meters[${index}].expression: refers to its own meter "${id}"`);
      else if (!known.has(id))
        problems.push(`meters[${index}].expression: unknown meter "${id}" (known: ${[...known].join(', ')})`);
    }
    graph.set(
      entry.id,
      ids.filter((id) => id !== entry.id),
    );
  });
  const cycle = findCycle(graph);
  if (cycle) {
    const index = entries.findIndex((entry) => entry.id === cycle[0]);
    problems.push(
      `meters[${index}].expression: virtual meters refer to each other in a cycle: ${cycle.join(' -> ')}`,
    );
  }
  return problems;
}

/** A cycle among virtual meters (depth-first search), as the ids along it, or undefined. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const done = new Set<string>();
  const walk = (id: string, path: string[]): string[] | undefined => {
    const loop = path.indexOf(id);
    if (loop >= 0) return [...path.slice(loop), id];
    if (done.has(id) || !graph.has(id)) return undefined;
    for (const next of graph.get(id)!) {
      const found = walk(next, [...path, id]);
      if (found) return found;
    }
    done.add(id);
    return undefined;
  };
  for (const id of graph.keys()) {
    const found = walk(id, []);
    if (found) return found;
  }
  return undefined;
}

/** The serial device a meter source opens, as a claim on it; none for a network source. */
function claimOf(field: string, source: MeterSource): PortClaim | undefined {
  if (source.kind === 'modbus-rtu') {
    const { path, baudRate, parity, stopBits, unitId } = source;
    return { field, path, rtu: { line: { path, baudRate, parity, stopBits }, unit: unitId, what: 'polls' } };
  }
  return source.kind === 'serial' ? { field, path: source.path } : undefined;
}

/** The serial devices the primary (when given) and the further meters open. */
export function claimsOf(entries: readonly MeterEntry[], primary?: string): PortClaim[] {
  const claims: Array<PortClaim | undefined> = [];
  if (primary !== undefined) {
    try {
      claims.push(claimOf('meter.source', parseSource(primary)));
    } catch {
      // meter.source's own format reports it
    }
  }
  entries.forEach((entry, index) => {
    if (!isVirtualEntry(entry)) claims.push(claimOf(`meters[${index}].source`, parseSource(entry.source)));
  });
  return claims.filter((claim): claim is PortClaim => claim !== undefined);
}

/** Every problem of a `meters[]` value, each naming its field (`meters[2].id: ...`). */
export function meterListProblems(value: unknown, primarySource?: string): string[] {
  if (!Array.isArray(value)) return ['meters: must be an array'];
  if (value.length > MAX_METERS) return [`meters: at most ${MAX_METERS} meters`];
  const problems = value.flatMap((entry, index) => entryProblems(entry, `meters[${index}]`));
  if (problems.length > 0) return problems;
  const entries = value as MeterEntry[];
  return [...setProblems(entries), ...portProblems(claimsOf(entries, primarySource))];
}

const METERS_LIST = jsonValueFormat('meters-list', {
  check: (value) => rejectProblems(meterListProblems(value), 'invalid-meters'),
  describe: 'list of {id, name, role, source, timeout} or {id, name, role, expression}',
  jsonSchema: { type: 'array', items: { type: 'object' } },
});

/**
 * The primary's port against the further meters' ports: a rule over two keys (meter.source and
 * meters), reported on `meters`.
 */
function primaryPortIssues(tree: Readonly<Record<string, unknown>>): ValidationIssue[] {
  const meters = getPath(tree, 'meters');
  const primary = getPath(tree, 'meter.source');
  if (!Array.isArray(meters) || meters.length === 0 || typeof primary !== 'string') return [];
  if (meterListProblems(meters).length > 0) return [];
  const problems = portProblems(claimsOf(meters as MeterEntry[], primary)).filter((problem) =>
    problem.includes('meter.source'),
  );
  return problems.map((message) => ({ field: 'meters', message, value: meters }));
}

const PORTS_RULE: ConfigRule = {
  name: 'meters-ports',
  watches: ['meter.source', 'meters'],
  check: primaryPortIssues,
};

/** The export limiter's settings: its RTU inverters are units on the meters' buses. */
const LIMITER = 'services.export_limiter';

/**
 * An inverter on an RS485 bus is a unit on the same bus as the meters there
 * (docs/architecture.md#shared-rs485-bus): the same line settings, a unit id of its own, and no
 * serial meter on that device; otherwise the limiter's writes would reach a meter, or two openers
 * would fight over one port.
 */
const BUS_RULE: ConfigRule = {
  name: 'export-limiter-bus',
  watches: ['meter.source', 'meters', 'services.export_limiter.inverters'],
  check(tree): ValidationIssue[] {
    const inverters = getPath(tree, `${LIMITER}.inverters`);
    if (!Array.isArray(inverters)) return [];
    const claims: PortClaim[] = [];
    inverters.forEach((inverter: { source?: unknown }, index) => {
      // An unparsable source is the inverter list's own format's problem.
      const endpoint =
        typeof inverter?.source === 'string' ? parseInverterSource(inverter.source) : undefined;
      if (endpoint?.kind !== 'rtu') return;
      const { unit, ...line } = endpoint;
      claims.push({
        field: `${LIMITER}.inverters[${index}].source`,
        path: line.path,
        rtu: {
          line: { path: line.path, baudRate: line.baudRate, parity: line.parity, stopBits: line.stopBits },
          unit,
          what: 'drives',
        },
      });
    });
    if (claims.length === 0) return [];
    const meters = getPath(tree, 'meters');
    const primary = getPath(tree, 'meter.source');
    const meterClaims =
      Array.isArray(meters) && meterListProblems(meters).length === 0
        ? claimsOf(meters as MeterEntry[], typeof primary === 'string' ? primary : undefined)
        : [];
    return portProblems([...meterClaims, ...claims])
      .filter((problem) => problem.includes(`${LIMITER}.inverters[`))
      .map((message) => ({ field: `${LIMITER}.inverters`, message, value: inverters }));
  },
};

/** Registers `meters-list`; the daemon calls it before the config loads. */
export function registerMetersFormats(): void {
  registerFormats([METERS_LIST]);
  registerRules([PORTS_RULE, BUS_RULE]);
}
