import { api, ApiError, isApplying } from './api.js';
import { fieldNameOf, setAt, valueAt, type FieldIssue } from './fields.js';
import { en } from './i18n/en/index.js';
import { t, tServer } from './i18n/i18n.js';

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** The named controls of a form: their names are the API body's dotted paths. */
function controlsOf(form: HTMLFormElement): Control[] {
  return [...form.querySelectorAll<Control>('input[name], select[name], textarea[name]')];
}

function isSecret(control: Control): boolean {
  return control.hasAttribute('data-secret');
}

/** Puts the API object's values into the form; write-only secrets are shown empty. */
export function fillForm(form: HTMLFormElement, data: unknown): void {
  for (const control of controlsOf(form)) {
    if (isSecret(control)) {
      control.value = '';
      continue;
    }
    // A setting the API leaves out while it has its default (data-default: the schema's default).
    const value = valueAt(data, control.name) ?? control.dataset.default;
    if (control instanceof HTMLInputElement && control.type === 'checkbox') control.checked = value === true;
    else control.value = value === undefined || value === null ? '' : String(value);
  }
}

/**
 * The form as a (partial) API body: checkboxes as booleans, number fields as numbers (an empty one
 * as "", which the API refuses by name), secrets only when something was typed (empty: unchanged).
 */
export function collectForm(form: HTMLFormElement): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const control of controlsOf(form)) {
    if (control.disabled) continue;
    if (isSecret(control) && control.value === '') continue;
    let value: unknown = control.value;
    if (control instanceof HTMLInputElement && control.type === 'checkbox') value = control.checked;
    else if ((control as HTMLInputElement).type === 'number' || control.dataset.type === 'number')
      value = control.value.trim() === '' ? '' : Number(control.value);
    setAt(body, control.name, value);
  }
  return body;
}

/** The footer of a form built by script: its save button and the status line setStatus writes. */
export function saveFooter(): HTMLElement {
  const footer = document.createElement('footer');
  const save = document.createElement('button');
  save.type = 'submit';
  save.textContent = t('settings.save');
  const status = document.createElement('output');
  status.className = 'form-status';
  footer.append(save, status);
  return footer;
}

export function setStatus(form: HTMLElement, text: string, kind: 'ok' | 'error' | 'busy' = 'ok'): void {
  const output = form.querySelector<HTMLOutputElement>('output.form-status');
  if (!output) return;
  output.textContent = text;
  output.className = `form-status ${kind}`;
}

export function clearIssues(root: HTMLElement): void {
  for (const note of root.querySelectorAll('.field-error')) note.remove();
  for (const control of root.querySelectorAll('[aria-invalid]')) {
    control.removeAttribute('aria-invalid');
    control.classList.remove('invalid');
  }
}

/** Finds the control an issue's field names, or null when the form has none. */
export type ControlFinder = (field: string) => HTMLElement | null;

/** How `placeIssues` marks its notes. */
export interface NoteOptions {
  /** The messages are the server's own English words, marked translate="no". */
  fromServer?: boolean;
  /** The name a note carries in data-field, from the issue's field (default: the field itself). */
  noteField?: (field: string) => string;
}

/** An issue's rule in the page's language where the server named it by a key, else its English. */
export function issueText(issue: FieldIssue): string {
  return tServer(issue.message, issue.key, issue.args);
}

/** Puts each issue's message next to its control; returns the ones no control was found for. */
export function placeIssues(
  issues: readonly FieldIssue[],
  find: ControlFinder,
  { fromServer = false, noteField = (field) => field }: NoteOptions = {},
): FieldIssue[] {
  const unplaced: FieldIssue[] = [];
  for (const issue of issues) {
    const control = find(issue.field);
    if (!control) {
      unplaced.push(issue);
      continue;
    }
    control.setAttribute('aria-invalid', 'true');
    control.classList.add('invalid');
    const note = document.createElement('span');
    note.className = 'field-error';
    note.dataset.field = noteField(issue.field);
    // A rule the server names by a key is shown in the page's language, else as the server words it.
    note.textContent = issueText(issue);
    note.translate = !fromServer || (issue.key !== undefined && Object.hasOwn(en, issue.key));
    control.insertAdjacentElement('afterend', note);
  }
  return unplaced;
}

/**
 * The API's validation errors next to the fields they name. Field names come as config paths
 * (`system.name`, `mqtt.url`, `meter.source`) or body paths (`url`, `name`); `strip` is the form's
 * config prefix. Issues naming no field of the form are returned for the form's status line.
 */
export function showIssues(
  form: HTMLFormElement,
  issues: readonly FieldIssue[],
  strip: string,
): FieldIssue[] {
  clearIssues(form);
  const noteField = (field: string) => fieldNameOf(field, strip);
  const find = (field: string) =>
    controlsOf(form).find((candidate) => candidate.name === noteField(field)) ?? null;
  return placeIssues(issues, find, { noteField });
}

/** Shows a failed request on the form: field errors next to fields, the rest in the status line. */
export function showFailure(form: HTMLFormElement, error: unknown, strip = ''): void {
  if (error instanceof ApiError && error.failed.length > 0) {
    // Stored, but an output did not take it up: named, with its own reason as the daemon words it.
    const outputs = [...new Set(error.failed.map((failure) => failure.output))].join(', ');
    const reasons = error.failed.map((failure) => failure.message).join('; ');
    setStatus(form, t('apply.not_applied', { outputs, reasons }), 'error');
  } else if (error instanceof ApiError) {
    const unplaced = showIssues(form, error.fields, strip);
    const extra = unplaced.map((issue) => `${issue.field ? `${issue.field}: ` : ''}${issueText(issue)}`);
    const fieldsPlaced = error.fields.length > unplaced.length;
    setStatus(
      form,
      fieldsPlaced && extra.length === 0 ? t('settings.correct_fields') : [error.text, ...extra].join('; '),
      'error',
    );
  } else setStatus(form, t('settings.request_failed', { message: (error as Error).message }), 'error');
}

/**
 * A settings form bound to its endpoint (data-endpoint, prefix of error fields in data-strip):
 * loaded with GET, saved with PUT of the form's fields (a partial object), refilled from the answer.
 * `onLoaded` sees every answer (secret lengths and the like).
 */
export function bindSettingsForm(
  form: HTMLFormElement,
  onLoaded?: (data: unknown) => void,
): () => Promise<void> {
  const endpoint = form.dataset.endpoint!;
  const strip = form.dataset.strip ?? '';
  // The API validates; its messages are the ones shown next to the fields.
  form.noValidate = true;
  const show = (data: unknown) => {
    fillForm(form, data);
    onLoaded?.(data);
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    setStatus(form, t('common.saving'), 'busy');
    api<unknown>('PUT', endpoint, collectForm(form))
      .then((data) => {
        clearIssues(form);
        // 202: stored, still being applied; the status board tells how it ends.
        if (isApplying(data)) {
          setStatus(form, t('apply.applying', { outputs: data.outputs.join(', ') }), 'busy');
          return;
        }
        show(data);
        setStatus(form, t('common.saved'));
      })
      .catch((error: unknown) => showFailure(form, error, strip));
  });
  return async () => {
    clearIssues(form);
    try {
      show(await api<unknown>('GET', endpoint));
      setStatus(form, '');
    } catch (error) {
      showFailure(form, error, strip);
    }
  };
}
