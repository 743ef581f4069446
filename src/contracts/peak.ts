import Type, { type Static } from 'typebox';

/**
 * A stage of the peak guard (docs/architecture.md#peak-guard) as the settings store it under
 * `services.peak_guard.stages`: one declaration for the guard and for the settings page.
 */
export const PeakStageSchema = Type.Object({
  id: Type.String(),
  shed: Type.String({ description: 'action id run to shed the load' }),
  restore: Type.String({ description: 'action id run to restore it' }),
  relief_kw: Type.Number(),
  meter: Type.Optional(Type.String({ description: 'sub-meter measuring the load, when there is one' })),
  min_on_s: Type.Number(),
  min_off_s: Type.Number(),
  locks: Type.Array(Type.String(), {
    description: 'actions whose when/schedule triggers are suppressed while the stage is shed',
  }),
});
export type PeakStage = Static<typeof PeakStageSchema>;
