/**
 * The visible English text of the cost features (settings form, dashboard, explorer), in one place
 * so a translation catalogue can take them over.
 */
export const COST_STRINGS = {
  settingsTitle: 'Energy costs',
  enable: 'Show costs beside kWh',
  currency: 'Currency (ISO code)',
  importLegend: 'Import price',
  exportLegend: 'Export price (received)',
  mode: 'Price by',
  modes: {
    fixed: 'one fixed price',
    tariff: "the meter's tariff register (T1/T2)",
    time_of_use: 'time of day',
  },
  price: 'Price per kWh',
  t1: 'Price per kWh in tariff 1 (T1)',
  t2: 'Price per kWh in tariff 2 (T2)',
  timeOfUse: 'Time-of-use table',
  timeOfUseHint: 'HH:MM=price entries on quarter hours, e.g. 07:00=0.32 22:00=0.21',
  standing: 'Standing charge per month',
  save: 'Save',
  importCost: 'Import',
  exportCredit: 'Export credit',
  standingShare: 'Standing charge',
  capacity: 'Capacity charge',
  total: 'Total',
  perSlot: 'Cost per bar',
  slot: 'Period',
  energy: 'kWh in / out',
  cost: 'Cost',
};
