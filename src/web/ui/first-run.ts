import type { SystemView } from '../../contracts/system.js';
import { api, element } from './api.js';

/** The dashboard's hint while no password is stored: anyone on the network may change settings. */
export async function showFirstRunHint(): Promise<void> {
  try {
    const { access } = await api<SystemView>('GET', '/api/v1/system');
    element('first-run-hint').hidden = access.password_set;
  } catch {
    // The dashboard's own status shows an unreachable gateway; the hint stays as it was.
  }
}
