import type { dashboard as english } from '../en/dashboard.js';
import type { Translation } from '../part.js';

/** Deutsch: die späteren Teile der Übersicht und die Live-Werte der Leistungsspitze. */
export const dashboard: Translation<typeof english> = {
  'dashboard.month_so_far': 'Dieser Monat bisher',
  'dashboard.last_reading': 'Letzter Messwert empfangen um {time}, vor {seconds} s',
  'peak.live_title': 'Aktuelles Fenster',
  'peak.rolling_one': 'Gleitender Mittelwert: {kw} kW über {count} Monat',
  'peak.rolling_short_one': 'Weniger als 12 Monate erfasst: der Mittelwert ist der Wert von {count} Monat.',
};
