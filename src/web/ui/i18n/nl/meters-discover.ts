import type { metersDiscover as english } from '../en/meters-discover.js';
import type { Translation } from '../part.js';

/** Nederlands: "Zoeken in het netwerk" van de editor voor extra meters (via mDNS gevonden apparaten). */
export const metersDiscover: Translation<typeof english> = {
  'meters.discover.find': 'Zoeken in het netwerk',
  'meters.discover.searching': 'netwerk wordt doorzocht…',
  'meters.discover.none': 'geen HomeWizard- of Shelly-apparaat heeft geantwoord',
  'meters.discover.found': 'gevonden apparaten: {count}',
  'meters.discover.pick': 'Gevonden apparaten',
  'meters.discover.choose': 'kies een apparaat…',
  'error.mdns_off': 'mDNS staat uit (services.broadcast): zet het aan om in het netwerk te zoeken',
};
