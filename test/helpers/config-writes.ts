import type { ApplyResult } from '../../src/config/config-store.js';
import type { ListenerFailure } from '../../src/guarded-emitter.js';

/**
 * A write's result once every output has reconciled: `settled` replaced by the failures it gave
 * (and `pending`, empty by then, left out).
 */
export async function applied(
  result: ApplyResult,
): Promise<Exclude<ApplyResult, { ok: true }> | { ok: true; changed: string[]; failed: ListenerFailure[] }> {
  if (!result.ok) return result;
  const { settled, pending: _pending, ...rest } = result;
  return { ...rest, failed: await settled };
}
