/**
 * English texts of the further-meter editor's "Find on the network": the HomeWizard and Shelly
 * dongles an mDNS browse found (GET /api/v1/meters/discover), offered to pick.
 */
export const metersDiscover = {
  'meters.discover.find': 'Find on the network',
  'meters.discover.searching': 'searching the network…',
  'meters.discover.none': 'no HomeWizard or Shelly device answered',
  'meters.discover.found': 'devices found: {count}',
  'meters.discover.pick': 'Found devices',
  'meters.discover.choose': 'choose a device…',
  'error.mdns_off': 'mDNS is off (services.broadcast): turn it on to find devices on the network',
};
