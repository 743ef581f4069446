import type { metersDiscover as english } from '../en/meters-discover.js';
import type { Translation } from '../part.js';

/** Français : « Rechercher sur le réseau » de l'éditeur des compteurs supplémentaires (appareils trouvés par mDNS). */
export const metersDiscover: Translation<typeof english> = {
  'meters.discover.find': 'Rechercher sur le réseau',
  'meters.discover.searching': 'recherche sur le réseau…',
  'meters.discover.none': 'aucun appareil HomeWizard ou Shelly n’a répondu',
  'meters.discover.found': 'appareils trouvés : {count}',
  'meters.discover.pick': 'Appareils trouvés',
  'meters.discover.choose': 'choisir un appareil…',
  'error.mdns_off': 'mDNS est désactivé (services.broadcast) : activez-le pour rechercher sur le réseau',
};
