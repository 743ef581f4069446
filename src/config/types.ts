import type { FormatTypes } from './formats.js';
import type { SCHEMA } from './schema.js';

/**
 * The typed view of the effective configuration, inferred from the schema (schema.ts): a leaf
 * (a node with a `format`) has the type its format gives (FormatTypes), narrowed to its `values`
 * for a choice, plus null where the leaf is nullable; every other node is a section. A key added
 * to the schema is typed everywhere with no second edit.
 */
type LeafValue<L> = L extends { format: 'one-of'; values: readonly (infer V)[] }
  ? V
  : L extends { format: infer F }
    ? F extends keyof FormatTypes
      ? FormatTypes[F]
      : unknown
    : never;

type LeafType<L> = LeafValue<L> | (L extends { nullable: true } ? null : never);

export type ConfigOf<S> = {
  -readonly [K in keyof S]: S[K] extends { format: string } ? LeafType<S[K]> : ConfigOf<S[K]>;
};

export type AppConfig = ConfigOf<typeof SCHEMA>;
export type WifiStationSettings = AppConfig['wifi']['sta'];
export type EthernetSettings = AppConfig['eth'];
export type MqttSettings = AppConfig['mqtt'];
export type MeterSettings = AppConfig['meter'];
