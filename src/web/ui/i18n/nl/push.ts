import type { push as english } from '../en/push.js';
import type { Translation } from '../part.js';

/** Nederlands: de sectie Vlootpush van de infopagina. */
export const push: Translation<typeof english> = {
  'push.title': 'Vlootpush',
  'push.none': 'Er is geen pushdoel ingeschakeld.',
  'push.target': 'Doel',
  'push.state': 'Toestand',
  'push.cursor': 'Verzonden tot',
  'push.backlog': 'Achterstand (kwartieren)',
  'push.sent': 'Verzonden waarden',
  'push.retried': 'Herhalingen',
  'push.dropped': 'Verworpen (te oud / geweigerd)',
  'push.last_error': 'Laatste fout',
  'push.state.starting': 'start',
  'push.state.idle': 'bijgewerkt',
  'push.state.sending': 'verzendt',
  'push.state.backoff': 'wacht op nieuwe poging',
  'push.state.clock_unsynced': 'klok wijkt af',
  'push.state.error': 'fout',
  'push.state.stopped': 'gestopt',
  'push.load_failed': 'Pushtoestand niet geladen: {message}',
};
