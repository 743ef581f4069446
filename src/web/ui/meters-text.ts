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

/** The text of the meters editor in Settings > Meter. */
export const METERS_SETTINGS_TEXT = {
  id: 'Id',
  name: 'Name',
  role: 'Role',
  kind: { polled: 'polled (source)', virtual: 'virtual (expression)' } as Record<string, string>,
  source: 'Source URI',
  expression: 'Expression, e.g. main - ev',
  timeout: 'Timeout (s)',
  test: 'Test this source',
  testing: 'testing…',
  remove: 'Remove',
  saved: 'saved',
  firstReading: (status: string, power: string) => `first reading: status ${status}, power ${power} kW`,
  failedTest: (status: string, error: string) => `no reading: ${status}, ${error}`,
};
