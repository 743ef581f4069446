import { api, ApiError, element } from './api.js';
import { clearIssues, setStatus, showFailure } from './forms.js';

/**
 * The Modbus layout page: the custom layout as JSON (GET /api/v1/modbus; 404 = the default layout
 * is in use, shown from GET /api/v1/modbus/default), saved with POST, reset with DELETE, the
 * address view with ?address_format=hex. The
 * layout validator's issues are listed under the editor.
 */
export function bindModbus(): () => Promise<void> {
  const form = element<HTMLFormElement>('form-modbus');
  const editor = form.querySelector<HTMLTextAreaElement>('textarea[name=layout]')!;
  const issues = element('modbus-issues');
  const detail = element('modbus-detail');
  const state = element('modbus-state');

  const showIssues = (error: unknown) => {
    showFailure(form, error);
    issues.replaceChildren();
    if (!(error instanceof ApiError)) return;
    for (const issue of error.fields) {
      const item = document.createElement('li');
      item.textContent = `${issue.field ? `${issue.field}: ` : ''}${issue.message}`;
      issues.append(item);
    }
    if (error.fields.length > 0) setStatus(form, error.message, 'error');
  };

  let usingDefault = false;
  const load = async () => {
    clearIssues(form);
    issues.replaceChildren();
    detail.hidden = true;
    try {
      const layout = await api<unknown>('GET', '/api/v1/modbus');
      editor.value = JSON.stringify(layout, null, 2);
      state.textContent = 'A custom layout is in use.';
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) return showFailure(form, error);
      usingDefault = true;
      editor.value = JSON.stringify(await api<unknown>('GET', '/api/v1/modbus/default'), null, 2);
      state.textContent =
        "The default layout (the specification's) is in use, shown below. Edit it and save to use a custom layout.";
      setStatus(form, '');
      return;
    }
    usingDefault = false;
    setStatus(form, '');
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    let layout: unknown;
    try {
      layout = JSON.parse(editor.value);
    } catch (error) {
      issues.replaceChildren();
      setStatus(form, `Not valid JSON: ${(error as Error).message}`, 'error');
      return;
    }
    setStatus(form, 'Saving…', 'busy');
    api<unknown>('POST', '/api/v1/modbus', layout)
      .then(() => load())
      .then(() => setStatus(form, 'Saved.'))
      .catch(showIssues);
  });
  element('modbus-reset').addEventListener('click', () => {
    if (!confirm('Delete the custom layout and serve the default one?')) return;
    api('DELETE', '/api/v1/modbus')
      .then(() => load())
      .then(() => setStatus(form, 'Default layout restored.'))
      .catch(showIssues);
  });
  element('modbus-addresses').addEventListener('click', () => {
    api<unknown>('GET', `/api/v1/modbus${usingDefault ? '/default' : ''}?address_format=hex`)
      .then((layout) => {
        detail.textContent = JSON.stringify(layout, null, 2);
        detail.hidden = false;
      })
      .catch(showIssues);
  });
  return load;
}
