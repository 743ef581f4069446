import type { push as english } from '../en/push.js';
import type { Translation } from '../part.js';

/** Deutsch: der Abschnitt Flotten-Push der Info-Seite. */
export const push: Translation<typeof english> = {
  'push.title': 'Flotten-Push',
  'push.none': 'Kein Push-Ziel ist eingeschaltet.',
  'push.target': 'Ziel',
  'push.state': 'Zustand',
  'push.cursor': 'Gesendet bis',
  'push.backlog': 'Rückstand (Viertelstunden)',
  'push.sent': 'Gesendete Werte',
  'push.retried': 'Wiederholungen',
  'push.dropped': 'Verworfen (zu alt / abgelehnt)',
  'push.last_error': 'Letzter Fehler',
  'push.state.starting': 'startet',
  'push.state.idle': 'aktuell',
  'push.state.sending': 'sendet',
  'push.state.backoff': 'wartet auf neuen Versuch',
  'push.state.clock_unsynced': 'Uhr weicht ab',
  'push.state.error': 'Fehler',
  'push.state.stopped': 'angehalten',
  'push.load_failed': 'Push-Zustand nicht geladen: {message}',
};
