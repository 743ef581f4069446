/**
 * English texts of the dashboard's later additions (this month's costs, the age of the last
 * reading) and the peak guard's live numbers and counted texts. A text counted by a number has its
 * other form under its key and a form for one more under `<key>_one` (plural.ts).
 */
export const dashboard = {
  'dashboard.month_so_far': 'This month so far',
  'dashboard.last_reading': 'Last reading received at {time}, {seconds} s ago',
  'peak.live_title': 'Current window',
  'peak.rolling_one': 'Rolling average: {kw} kW over {count} month',
  'peak.rolling_short_one': 'Fewer than 12 months recorded: the average is the value of {count} month.',
};
