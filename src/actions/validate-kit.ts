/**
 * The shared pieces of the actions definition check (definition-validate.ts): the issue list,
 * the names no id or key may take, and the checks of numbers and of texts with ${variables}.
 */
import type { ValidationIssue } from '../config/validation.js';
import type { ConstValue } from './definition.js';
import { unknownVariables } from './variables.js';

export type Record_ = Record<string, unknown>;

/**
 * Names an id or key may not take (docs/architecture.md#actions): they are the special properties of
 * every JavaScript object, so a client library or script keeping actions in a plain object would
 * lose them. The gateway itself keys by Map or own properties only.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
export const isObject = (value: unknown): value is Record_ =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The issues found so far, each naming its field. */
export class Issues {
  readonly list: ValidationIssue[] = [];
  add(field: string, message: string, value?: unknown): void {
    this.list.push(value === undefined ? { field, message } : { field, message, value });
  }
  /** Checks a key against the allowed ones: unknown keys are refused (a typo must not pass silently). */
  keys(field: string, object: Record_, allowed: readonly string[]): void {
    for (const key of Object.keys(object))
      if (!allowed.includes(key))
        this.add(`${field}.${key}`, `unknown field; allowed: ${allowed.join(', ')}`);
  }
}

/** A number within [min, max] (an integer where asked); undefined passes. */
export function checkNumber(
  issues: Issues,
  field: string,
  value: unknown,
  min: number,
  max: number,
  integer = false,
): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)))
    issues.add(field, integer ? 'must be an integer' : 'must be a number', value);
  else if (value < min || value > max) issues.add(field, `must be ${min}..${max}`, value);
}

/** A string whose ${variables} are all known (a constant or a declared variable). */
export function checkText(
  issues: Issues,
  field: string,
  value: unknown,
  constants: Record<string, ConstValue>,
  echo = true,
): void {
  if (typeof value !== 'string') return issues.add(field, 'must be a string', echo ? value : undefined);
  const unknown = unknownVariables(value, constants);
  if (unknown.length > 0)
    issues.add(
      field,
      `unknown variable ${unknown.map((name) => `\${${name}}`).join(', ')}`,
      echo ? value : undefined,
    );
}
