/**
 * Builders of the leaves of the convict schema, shared by schema.ts and the sections it keeps in
 * files of their own: a bounded integer or number with its default, range and doc line (the
 * settings API and the web form read min, max and step from here), a switch, a text, a secret, a
 * choice, and a leaf whose format a module outside config/ registers.
 */

export const int = (def: number, min: number, max: number, doc: string) => ({
  doc,
  format: 'bounded-int' as const,
  default: def,
  min,
  max,
});

export const num = (def: number, min: number, max: number, doc: string, step?: number) => ({
  doc,
  format: 'bounded-number' as const,
  default: def,
  min,
  max,
  ...(step ? { step } : {}),
});

export const bool = (def: boolean, doc: string) => ({ doc, format: 'bool' as const, default: def });
export const text = (
  def: string,
  maxLength: number | undefined,
  doc: string,
  extra: Record<string, unknown> = {},
) => ({
  doc,
  format: 'text' as const,
  default: def,
  ...(maxLength !== undefined ? { maxLength } : {}),
  ...extra,
});
export const secret = (maxLength: number | undefined, doc: string, extra: Record<string, unknown> = {}) => ({
  ...text('', maxLength, doc, extra),
  sensitive: true,
  secret: true,
});
export const oneOf = <const V extends readonly string[]>(def: V[number], values: V, doc: string) => ({
  doc,
  format: 'one-of' as const,
  default: def,
  values,
});
/** A leaf whose format a module outside config/ registers. */
export const owned = <F extends string>(
  format: F,
  def: string,
  doc: string,
  extra: Record<string, unknown> = {},
) => ({
  doc,
  format,
  default: def,
  ...extra,
});
