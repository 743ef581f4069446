/**
 * Tree helpers of the configuration store (config-store.ts): the layered deep merge of the schema's
 * sections, leaf removal, JSON equality and freezing of the effective tree.
 */
import { getPath, LEAVES } from './paths.js';

/**
 * Deep merge of the schema's sections; a leaf's value (scalar, array, or an object such as the
 * actions definition) replaces the one below it whole. Keys are defined as own properties, so a
 * key such as `__proto__` in a file is a name like any other (the schema check reports it).
 */
export function merge(
  target: Record<string, unknown>,
  source: Record<string, unknown>,
  prefix = '',
): Record<string, unknown> {
  for (const [key, value] of Object.entries(source)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const current = Object.hasOwn(target, key) ? target[key] : undefined;
    if (!LEAVES.has(path) && isPlainObject(value) && isPlainObject(current)) merge(current, value, path);
    else Object.defineProperty(target, key, { value: structuredClone(value), ...OWN });
  }
  return target;
}

const OWN = { writable: true, enumerable: true, configurable: true } as const;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Removes a leaf from a tree (no-op when absent). */
export function unsetPath(tree: Record<string, unknown>, path: string): void {
  const keys = path.split('.');
  const parent = getPath(tree, keys.slice(0, -1).join('.'));
  if (keys.length === 1) delete tree[keys[0]!];
  else if (isPlainObject(parent)) delete parent[keys[keys.length - 1]!];
}

/** Equality of two JSON values (settings are JSON: key order follows the schema's merge). */
export function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Freezes a tree and everything in it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
