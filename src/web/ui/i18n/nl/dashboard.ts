import type { dashboard as english } from '../en/dashboard.js';
import type { Translation } from '../part.js';

/** Nederlands: de latere onderdelen van het dashboard en de live waarden van de capaciteitspiek. */
export const dashboard: Translation<typeof english> = {
  'dashboard.month_so_far': 'Deze maand tot nu',
  'dashboard.last_reading': 'Laatste meting ontvangen om {time}, {seconds} s geleden',
  'peak.live_title': 'Huidig venster',
  'peak.rolling_one': 'Voortschrijdend gemiddelde: {kw} kW over {count} maand',
  'peak.rolling_short_one':
    'Minder dan 12 maanden geregistreerd: het gemiddelde is de waarde van {count} maand.',
};
