import type { ActionDefinition, CheapestTrigger, WhenCondition } from '../../contracts/actions.js';
import type { ActionsChoices } from '../../contracts/page.js';
import { labelled, selectOf, showLabel, textInput } from './controls.js';
import { t } from './i18n/i18n.js';
import { quantityName } from './quantity-names.js';
import { cronOf, presetOf, SCHEDULE_KINDS, type ScheduleKind } from './schedule-presets.js';

/**
 * The trigger part of the Actions form: a schedule from presets (every day / Monday to Friday at a
 * time, every N minutes) or a cron expression, and the `when` condition built from the quantity
 * table (value, above/below, threshold in the value's unit, for N seconds). Reads and writes the
 * action's `schedule` and `when` fields, and the `cheapest` trigger on the day-ahead prices (the
 * cheapest or most expensive quarters of a time window; docs/architecture.md#prices).
 */

export class TriggerEditor {
  private readonly kind: HTMLSelectElement;
  private readonly time = textInput('schedule.time', 'time');
  private readonly minutes = textInput('schedule.minutes', 'number');
  private readonly cron = textInput('schedule');
  private readonly whenOn = textInput('when.enable', 'checkbox');
  private readonly quantity: HTMLSelectElement;
  private readonly above = selectOf('when.kind', [
    ['above', t('actions.above')],
    ['below', t('actions.below')],
  ]);
  private readonly threshold = textInput('when.threshold', 'number');
  private readonly unit = document.createElement('span');
  private readonly seconds = textInput('when.for', 'number');
  private readonly whenFields: HTMLElement[] = [];
  private readonly cheapestOn = textInput('cheapest.enable', 'checkbox');
  private readonly quarters = textInput('cheapest.quarters', 'number');
  private readonly windowFrom = textInput('cheapest.window_from', 'time');
  private readonly windowTo = textInput('cheapest.window_to', 'time');
  private readonly contiguous = textInput('cheapest.contiguous', 'checkbox');
  private readonly inverse = textInput('cheapest.inverse', 'checkbox');
  private readonly priceLimit = textInput('cheapest.price_limit', 'number');
  private readonly failsafe = textInput('cheapest.failsafe_start', 'time');
  private readonly off = textInput('cheapest.off');
  private readonly cheapestFields: HTMLElement[] = [];

  constructor(
    container: HTMLElement,
    private readonly choices: ActionsChoices,
  ) {
    const kinds = SCHEDULE_KINDS.map((kind): [string, string] => [kind, t(`action_form.kind_${kind}`)]);
    this.kind = selectOf('schedule.kind', kinds);
    this.minutes.min = '1';
    this.minutes.max = '59';
    this.minutes.step = '1';
    this.seconds.min = '0';
    this.seconds.max = String(choices.limits.forSeconds);
    this.cron.placeholder = '0 7 * * 1-5';
    this.quantity = selectOf(
      'when.value',
      choices.quantities.map((q) => [q.live ?? q.name, `${quantityName(q.label)} (${q.unit})`]),
    );
    this.unit.className = 'unit';
    const schedule = document.createElement('fieldset');
    const legend = document.createElement('legend');
    legend.textContent = t('action_form.schedule');
    schedule.append(
      legend,
      labelled(t('action_form.run'), this.kind),
      labelled(t('actions.time'), this.time),
      labelled(t('action_form.minutes'), this.minutes),
      labelled(t('action_form.cron'), this.cron),
    );
    const when = document.createElement('fieldset');
    const whenLegend = document.createElement('legend');
    whenLegend.textContent = t('actions.condition');
    const threshold = labelled(t('actions.threshold'), this.threshold);
    threshold.insertBefore(this.unit, this.threshold);
    this.whenFields.push(
      labelled(t('actions.value'), this.quantity),
      labelled(t('action_form.when_is'), this.above),
      threshold,
      labelled(t('action_form.for_at_least'), this.seconds),
    );
    when.append(whenLegend, labelled(t('action_form.when_enable'), this.whenOn, 'check'), ...this.whenFields);
    const cheapest = document.createElement('fieldset');
    const cheapestLegend = document.createElement('legend');
    cheapestLegend.textContent = t('action_form.cheapest');
    this.quarters.min = '1';
    this.quarters.max = '96';
    this.quarters.step = '1';
    for (const time of [this.windowFrom, this.windowTo, this.failsafe]) time.step = '900';
    this.cheapestFields.push(
      labelled(t('action_form.cheapest_quarters'), this.quarters),
      labelled(t('action_form.cheapest_from'), this.windowFrom),
      labelled(t('action_form.cheapest_to'), this.windowTo),
      labelled(t('action_form.cheapest_contiguous'), this.contiguous, 'check'),
      labelled(t('action_form.cheapest_inverse'), this.inverse, 'check'),
      labelled(t('action_form.cheapest_limit'), this.priceLimit),
      labelled(t('action_form.cheapest_failsafe'), this.failsafe),
      labelled(t('action_form.cheapest_off'), this.off),
    );
    cheapest.append(
      cheapestLegend,
      labelled(t('action_form.cheapest_enable'), this.cheapestOn, 'check'),
      ...this.cheapestFields,
    );
    container.replaceChildren(schedule, when, cheapest);
    for (const control of [this.kind, this.whenOn, this.quantity, this.cheapestOn])
      control.addEventListener('change', () => this.sync());
  }

  /** Shows the fields the chosen schedule kind and condition need, and the quantity's unit. */
  private sync(): void {
    const kind = this.kind.value as ScheduleKind;
    showLabel(this.time.parentElement!, kind === 'daily' || kind === 'weekdays');
    showLabel(this.minutes.parentElement!, kind === 'every');
    showLabel(this.cron.parentElement!, kind === 'custom');
    for (const field of this.whenFields) showLabel(field, this.whenOn.checked);
    for (const field of this.cheapestFields) showLabel(field, this.cheapestOn.checked);
    const chosen = this.choices.quantities.find((q) => (q.live ?? q.name) === this.quantity.value);
    this.unit.textContent = chosen ? `(${chosen.unit})` : '';
  }

  set(action: ActionDefinition | undefined): void {
    const preset = presetOf(action?.schedule);
    this.kind.value = preset.kind;
    this.time.value = preset.time ?? '';
    this.minutes.value = preset.minutes === undefined ? '' : String(preset.minutes);
    this.cron.value = action?.schedule ?? '';
    const when = action?.when;
    this.whenOn.checked = when !== undefined;
    const quantity =
      when && this.choices.quantities.find((q) => q.live === when.value || q.name === when.value);
    this.quantity.value = quantity
      ? (quantity.live ?? quantity.name)
      : (this.quantity.options[0]?.value ?? '');
    this.above.value = when?.below !== undefined ? 'below' : 'above';
    this.threshold.value = String(when?.above ?? when?.below ?? '');
    this.seconds.value = String(when?.for ?? '');
    const cheapest = action?.cheapest;
    this.cheapestOn.checked = cheapest !== undefined;
    const [from, to] = (cheapest?.window ?? '-').split('-');
    this.quarters.value = String(cheapest?.quarters ?? '');
    this.windowFrom.value = from ?? '';
    this.windowTo.value = to ?? '';
    this.contiguous.checked = cheapest?.contiguous === true;
    this.inverse.checked = cheapest?.inverse === true;
    this.priceLimit.value = String(cheapest?.price_limit ?? '');
    this.failsafe.value = cheapest?.failsafe_start ?? '';
    this.off.value = cheapest?.off ?? '';
    this.sync();
  }

  /** The action's `schedule` and `when` as the form describes them (numbers unparsed when empty). */
  read(): { schedule?: string; when?: WhenCondition; cheapest?: CheapestTrigger } {
    const out: { schedule?: string; when?: WhenCondition; cheapest?: CheapestTrigger } = {};
    const schedule = cronOf(
      this.kind.value as ScheduleKind,
      this.time.value,
      this.minutes.value,
      this.cron.value,
    );
    if (schedule !== undefined) out.schedule = schedule;
    if (this.whenOn.checked) {
      const number = (input: HTMLInputElement) =>
        input.value.trim() === '' ? Number.NaN : Number(input.value);
      out.when = {
        value: this.quantity.value,
        [this.above.value]: number(this.threshold),
        for: number(this.seconds),
      };
      if (this.seconds.value.trim() === '') out.when.for = 0;
    }
    if (this.cheapestOn.checked) {
      const cheapest: CheapestTrigger = {
        quarters: this.quarters.value.trim() === '' ? Number.NaN : Number(this.quarters.value),
        window: `${this.windowFrom.value}-${this.windowTo.value}`,
      };
      if (this.contiguous.checked) cheapest.contiguous = true;
      if (this.inverse.checked) cheapest.inverse = true;
      if (this.priceLimit.value.trim() !== '') cheapest.price_limit = Number(this.priceLimit.value);
      if (this.failsafe.value !== '') cheapest.failsafe_start = this.failsafe.value;
      if (this.off.value.trim() !== '') cheapest.off = this.off.value.trim();
      out.cheapest = cheapest;
    }
    return out;
  }

  /** The visible control an issue of `schedule` belongs to. */
  scheduleControl(): HTMLElement {
    const kind = this.kind.value as ScheduleKind;
    return kind === 'custom'
      ? this.cron
      : kind === 'every'
        ? this.minutes
        : kind === 'none'
          ? this.kind
          : this.time;
  }
}
