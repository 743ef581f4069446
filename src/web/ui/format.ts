/** Numbers as the dashboard shows them; a value the meter did not send is a dash. */
export function formatNumber(value: unknown, decimals: number): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(decimals) : '—';
}

/** Decimals by live key: kW and kWh to the watt(-hour), volts to 0.1, amperes to 0.01. */
export function decimalsOf(key: string): number {
  if (key.startsWith('V_')) return 1;
  if (key.startsWith('I_')) return 2;
  if (key === 'T') return 0;
  return 3;
}

export function clockTime(date: Date): string {
  return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
