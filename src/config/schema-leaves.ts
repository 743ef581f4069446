/**
 * Builders of the numeric leaves of the convict schema, shared by the schema and the sections it
 * keeps in files of their own: a bounded integer or number with its default, range and doc line
 * (the settings API and the web form read min, max and step from here).
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
