/**
 * The Actions form's schedule presets and the cron expressions they stand for (node-cron's five
 * fields, local time); DOM-free, tested in node.
 */

/** The schedule kinds in the order the form offers them. */
export const SCHEDULE_KINDS = ['none', 'daily', 'weekdays', 'every', 'custom'] as const;

export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

/** A cron expression as one of the presets, or `custom`. */
export function presetOf(cron: string | undefined): { kind: ScheduleKind; time?: string; minutes?: number } {
  if (!cron) return { kind: 'none' };
  const pad = (n: string) => n.padStart(2, '0');
  const daily = /^(\d{1,2}) (\d{1,2}) \* \* (\*|1-5)$/.exec(cron.trim());
  if (daily && Number(daily[1]) < 60 && Number(daily[2]) < 24)
    return { kind: daily[3] === '*' ? 'daily' : 'weekdays', time: `${pad(daily[2]!)}:${pad(daily[1]!)}` };
  const every = /^\*\/(\d{1,2}) \* \* \* \*$/.exec(cron.trim());
  if (every) return { kind: 'every', minutes: Number(every[1]) };
  return { kind: 'custom' };
}

/** The cron expression of a preset (node-cron's five fields, local time); undefined: no schedule. */
export function cronOf(
  kind: ScheduleKind,
  time: string,
  minutes: string,
  custom: string,
): string | undefined {
  const [hour, minute] = time.split(':').map(Number);
  switch (kind) {
    case 'none':
      return undefined;
    case 'daily':
    case 'weekdays':
      if (!time) return '';
      return `${minute} ${hour} * * ${kind === 'daily' ? '*' : '1-5'}`;
    case 'every':
      return `*/${minutes.trim()} * * * *`;
    case 'custom':
      return custom.trim();
  }
}
