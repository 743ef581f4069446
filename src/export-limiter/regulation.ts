import { effectSeen, planLimits, type Pending } from './control-law.js';
import type { Inverter } from './inverter.js';
import type { InverterIo } from './inverter-io.js';
import type { Decision, LimiterSettings } from './limiter-status.js';

/**
 * The writes of one control step of the export limiter on a fresh grid reading
 * (docs/architecture.md#export-limiter): off and free hand the inverters back, pv_off holds 0 %,
 * zero_export follows the control law one effect at a time; setpoint devices hold target_w; a
 * held limit is written again every refresh_s.
 */

/** What a step's writes follow: the settings, the decision, the grid reading and the write in flight. */
export interface StepFacts {
  settings: LimiterSettings;
  decision: Decision;
  /** Grid power of the reading (W, import positive). */
  gridW: number;
  /** When that reading was taken. */
  gridAt: number | null;
  pending: Pending | undefined;
}

/** The writes of a step for the inverters that answered; returns the write in flight after it. */
export async function regulate(
  io: InverterIo,
  step: StepFacts,
  all: Inverter[],
  now: number,
): Promise<Pending | undefined> {
  const { settings, decision } = step;
  await holdSetpoints(
    io,
    settings,
    decision,
    all.filter((inverter) => inverter.holdsSetpoint),
    now,
  );
  const ready = all.filter((inverter) => !inverter.holdsSetpoint);
  if (ready.length === 0) return step.pending;
  if (decision === 'off' || decision === 'free') {
    for (const inverter of ready) await io.release(inverter);
    return step.pending;
  }
  if (decision === 'pv_off') {
    for (const inverter of ready)
      if (inverter.commandedPct !== 0) await io.command(inverter, 0, settings.revert_s, 'limit', now);
    await refresh(io, settings, ready, now, step.pending);
    return step.pending;
  }
  const reportedTotal = ready.reduce((sum, inverter) => sum + (inverter.reportedW ?? 0), 0);
  if (step.pending && !effectSeen(step.pending, reportedTotal, settings.deadband_w, step.gridAt, now))
    return step.pending;
  const error = step.gridW - settings.target_w;
  if (Math.abs(error) <= settings.deadband_w) {
    await refresh(io, settings, ready, now, undefined);
    return undefined;
  }
  const plan = planLimits(ready, error, settings.deadband_w);
  for (const { inverter, percent } of plan.writes)
    await io.command(inverter, percent, settings.revert_s, 'limit', now);
  if (plan.writes.length > 0) return { at: now, fromW: reportedTotal, commandedW: plan.commandedW };
  await refresh(io, settings, ready, now, undefined);
  return undefined;
}

/**
 * Setpoint devices (victron_ess): in zero_export and pv_off the grid setpoint is target_w (the
 * device cannot be told to stop its PV through it), written when it differs and again every
 * refresh_s; off and free give back the setpoint found at the first contact.
 */
async function holdSetpoints(
  io: InverterIo,
  settings: LimiterSettings,
  decision: Decision,
  devices: Inverter[],
  now: number,
): Promise<void> {
  for (const device of devices) {
    if (decision === 'off' || decision === 'free') {
      await io.release(device);
      continue;
    }
    const due =
      device.commandedW !== settings.target_w ||
      device.lastWriteAt === null ||
      now - device.lastWriteAt >= settings.refresh_s * 1000;
    if (!due) continue;
    const kind = device.commandedW === settings.target_w ? 'refresh' : 'limit';
    await io.setpoint(device, settings.target_w, kind, now);
  }
}

/** Writes the held limit again when refresh_s has passed since the last write. */
async function refresh(
  io: InverterIo,
  settings: LimiterSettings,
  ready: Inverter[],
  now: number,
  pending: Pending | undefined,
): Promise<void> {
  if (pending) return;
  for (const inverter of ready) {
    if (inverter.holdsSetpoint) continue;
    if (inverter.commandedPct === null || inverter.lastWriteAt === null) continue;
    if (now - inverter.lastWriteAt < settings.refresh_s * 1000) continue;
    await io.command(inverter, inverter.commandedPct, settings.revert_s, 'refresh', now);
  }
}
