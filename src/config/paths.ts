import { SCHEMA } from './schema.js';

/**
 * Dotted leaf paths of the schema and how they map onto state files. A leaf is a schema node with
 * a `format`; everything else is a section.
 */
export interface LeafInfo {
  path: string;
  default: unknown;
  secret: boolean;
  doc: string;
  format: string;
  schema: Record<string, unknown>;
}

function isLeaf(node: unknown): node is Record<string, unknown> & { format: string } {
  return typeof node === 'object' && node !== null && 'format' in node && 'default' in node;
}

function collectLeaves(node: Record<string, unknown>, prefix: string, out: Map<string, LeafInfo>): void {
  for (const [key, child] of Object.entries(node)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isLeaf(child)) {
      out.set(path, {
        path,
        default: child.default,
        secret: child.secret === true,
        doc: String(child.doc ?? ''),
        format: child.format,
        schema: child,
      });
    } else if (typeof child === 'object' && child !== null) {
      collectLeaves(child as Record<string, unknown>, path, out);
    }
  }
}

export const LEAVES: ReadonlyMap<string, LeafInfo> = (() => {
  const out = new Map<string, LeafInfo>();
  collectLeaves(SCHEMA, '', out);
  return out;
})();

/** State files the API writes (docs/architecture.md#durability), each holding its part of the tree. */
export type StateFileName = 'settings' | 'wifi' | 'mqtt' | 'modbus' | 'meter' | 'actions' | 'secrets';

const API_ROOTS: Record<string, StateFileName> = {
  system: 'settings',
  services: 'settings',
  wifi: 'wifi',
  // The wired connection is network settings too: one state file for both.
  eth: 'wifi',
  mqtt: 'mqtt',
  modbus: 'modbus',
  meter: 'meter',
  // Further meters (docs/architecture.md#several-meters) are stored beside the primary's settings.
  meters: 'meter',
  actions: 'actions',
};

/**
 * Paths that only the admin's file and the environment set (daemon-only keys,
 * docs/architecture.md#configuration).
 */
const DAEMON_ONLY_PREFIXES = [
  'mqtt.discovery.prefix',
  'mqtt.discovery.configuration_url',
  'meter.simulator.',
  'meter.timeout',
];

/** The state file an API write of `path` goes to, or undefined for daemon-only keys. */
export function stateFileOf(path: string): StateFileName | undefined {
  const leaf = LEAVES.get(path);
  if (!leaf) return undefined;
  if (DAEMON_ONLY_PREFIXES.some((prefix) => path.startsWith(prefix))) return undefined;
  const root = API_ROOTS[path.split('.')[0]!];
  if (!root) return undefined;
  return leaf.secret ? 'secrets' : root;
}

/** Leaves below a section prefix ('system', 'services', 'wifi.sta', 'mqtt' ...). */
export function leavesUnder(prefix: string): LeafInfo[] {
  return [...LEAVES.values()].filter((leaf) => leaf.path === prefix || leaf.path.startsWith(`${prefix}.`));
}

/**
 * Environment variable of a path: http.port -> METER_GATEWAY_HTTP_PORT (docs/architecture.md#configuration).
 */
export function envNameOf(path: string): string {
  return `METER_GATEWAY_${path.replaceAll('.', '_').toUpperCase()}`;
}

/** Reads obj[a][b][c] for the dotted path, undefined when any part is missing. */
export function getPath(obj: unknown, path: string): unknown {
  let node: unknown = obj;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Writes obj[a][b][c] = value for the dotted path, creating objects on the way. */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = obj;
  for (const key of keys.slice(0, -1)) {
    const child = node[key];
    if (typeof child !== 'object' || child === null || Array.isArray(child)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}
