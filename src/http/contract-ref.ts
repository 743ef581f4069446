import type * as Contracts from '../contracts/index.js';

/**
 * A route names the contract of its body or answer (src/contracts/) by a reference; the schemas,
 * and TypeBox that builds them, are loaded on first use: when GET /api/v1/openapi.json is asked or
 * a body is checked. A daemon nobody asks for its description never holds them
 * (docs/architecture.md#api-contracts).
 */
export type ContractModule = typeof Contracts;
export type ContractName = Extract<keyof ContractModule, `${string}Schema`>;

/** A reference to a contract schema; its name carries the schema's type to typed routes (`Static` of it). */
export interface ContractRef<N extends ContractName = ContractName> {
  readonly contract: N;
}

/** A reference to the contract schema `name` (a name the compiler checks). */
export function contract<N extends ContractName>(name: N): ContractRef<N> {
  return { contract: name };
}

let loading: Promise<ContractModule> | undefined;

/** The contract schemas, loaded once. */
export function loadContracts(): Promise<ContractModule> {
  loading ??= import('../contracts/index.js');
  return loading;
}

function isContractRef(value: unknown): value is ContractRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    typeof (value as { contract?: unknown }).contract === 'string'
  );
}

/** `value` with every contract reference in it replaced by its schema (a copy; `value` is kept). */
export function resolveContracts(value: unknown, contracts: ContractModule): unknown {
  if (isContractRef(value)) return contracts[value.contract];
  if (Array.isArray(value)) return value.map((item) => resolveContracts(item, contracts));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, resolveContracts(item, contracts)]),
  );
}
