import type { metersDiscover as english } from '../en/meters-discover.js';
import type { Translation } from '../part.js';

/** Deutsch: „Im Netzwerk suchen“ des Editors weiterer Zähler (per mDNS gefundene Geräte). */
export const metersDiscover: Translation<typeof english> = {
  'meters.discover.find': 'Im Netzwerk suchen',
  'meters.discover.searching': 'Netzwerk wird durchsucht…',
  'meters.discover.none': 'kein HomeWizard- oder Shelly-Gerät hat geantwortet',
  'meters.discover.found': 'gefundene Geräte: {count}',
  'meters.discover.pick': 'Gefundene Geräte',
  'meters.discover.choose': 'Gerät wählen…',
  'error.mdns_off': 'mDNS ist aus (services.broadcast): zum Suchen im Netzwerk einschalten',
};
