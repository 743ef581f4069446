/**
 * The user-visible text of the Meters page, in one place (a translation catalogue can take it
 * over whole).
 */
export const METERS_TEXT = {
  role: {
    grid: 'Grid',
    pv: 'PV',
    battery: 'Battery',
    ev: 'EV',
    heat_pump: 'Heat pump',
    consumer: 'Consumer',
    other: 'Other',
  } as Record<string, string>,
  virtual: 'virtual',
  noData: '—',
  flowTitle: 'Energy flow',
  flow: { grid: 'Grid', pv: 'PV', battery: 'Battery', ev: 'EV', house: 'House' } as Record<string, string>,
  failed: 'Meters could not be read: ',
};
