/** Every page of the interface, by its hash route (the settings one per tab). */
export const PAGES = [
  'dashboard',
  'meters',
  'history',
  'peak',
  'actions',
  'files',
  'info',
  ...['system', 'services', 'meter', 'mqtt', 'modbus', 'wifi', 'eth', 'maintenance'].map(
    (tab) => `settings/${tab}`,
  ),
];
